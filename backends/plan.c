/*
 * backends/plan.c — what every backend plan shares: rendering for --dry-run
 * (and -v) and freeing.
 */
#include <stdlib.h>
#include <string.h>

#include "backend.h"

static bool
kept(const struct kb_policy *p, int fd)
{
	for (size_t i = 0; i < p->nkeep; i++)
		if (p->keep_fd[i] == fd)
			return true;
	return false;
}

int
kb_plan_free_fd(const struct kb_policy *p, int from)
{
	while (kept(p, from))
		from++;
	return from;
}

void
kb_plan_note_fds(const struct kb_policy *p, struct kb_plan *pl)
{
	struct kb_buf b = {0};

	if (p->nkeep == 0) {
		kb_strv_push(&pl->notes, "fds: 0 1 2 only");
		return;
	}
	for (size_t i = 0; i < p->nkeep; i++)
		kb_buf_printf(&b, " %d", p->keep_fd[i]);
	kb_strv_pushf(&pl->notes, "fds: 0 1 2 and kept:%s", b.s);
	kb_buf_free(&b);
}

void
kb_plan_free(struct kb_plan *pl)
{
	free(pl->exe);
	kb_strv_free(&pl->argv);
	kb_strv_free(&pl->envp);
	kb_strv_free(&pl->notes);
	kb_strv_free(&pl->watch);
	kb_strv_free(&pl->watch_report);
	kb_strv_free(&pl->pass_path);
	kb_strv_free(&pl->checks);
	kb_strv_free(&pl->overlay);
	kb_strv_free(&pl->overlay_name);
	kb_strv_free(&pl->own);
	kb_strv_free(&pl->params);
	free(pl->profile);
	free(pl->granted);
	free(pl->pass_src);
	memset(pl, 0, sizeof(*pl));
}

char *
kb_plan_render(const struct kb_plan *pl)
{
	struct kb_buf b = {0};

	kb_buf_puts(&b, "");
	/* notes and argv name paths under the writable roots (guarded git
	 * metadata) and config text: one line each, escaped */
	for (size_t i = 0; i < pl->notes.n; i++) {
		kb_buf_puts(&b, "# ");
		kb_buf_escape(&b, pl->notes.v[i]);
		kb_buf_puts(&b, "\n");
	}
	for (size_t i = 0; i < pl->argv.n; i++) {
		const char *a = pl->argv.v[i];
		char *end;
		long fd;

		kb_buf_shquote_visible(&b, a);
		/* the landlock backend's roots, by descriptor */
		if (i > 0 && strcmp(pl->argv.v[i - 1], "--write-fd") == 0 &&
		    pl->npass > 0) {
			fd = strtol(a, &end, 10);
			if (*end == '\0' && fd >= pl->pass_base &&
			    fd < pl->pass_base + (long)pl->npass) {
				kb_buf_puts(&b, "  # ");
				kb_buf_escape(
				    &b, pl->pass_path.v[fd - pl->pass_base]);
			}
		}
		/* a bind source passed as a descriptor: say what it is */
		if (strncmp(a, "/proc/self/fd/", 14) == 0 && pl->npass > 0) {
			fd = strtol(a + 14, &end, 10);
			if (*end == '\0' && fd >= pl->pass_base &&
			    fd < pl->pass_base + (long)pl->npass) {
				kb_buf_puts(&b, "  # ");
				kb_buf_escape(
				    &b, pl->pass_path.v[fd - pl->pass_base]);
			}
		}
		kb_buf_puts(&b, "\n");
	}
	return b.s;
}
