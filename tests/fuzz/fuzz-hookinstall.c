/*
 * tests/fuzz/fuzz-hookinstall.c — libFuzzer target: the merge of kinpolicy
 * hook install (sidecar/hookinstall.c) and its --dry-run diff (sidecar/udiff.c)
 * on arbitrary settings files. The first byte picks the agent (mod 4:
 * claude-code, codex, gemini, cursor), the rest is the file. Besides "no
 * crash, no leak", it checks, and aborts when it does not hold:
 *   - a file install takes, a second install leaves equal, and says so;
 *   - the text written reads back as the merged JSON;
 *   - the diff of the old and new texts, applied to the old, gives the new;
 *   - after uninstall nothing of kinpolicy's is left (a second uninstall
 *     finds nothing);
 *   - for a file that holds nothing of kinpolicy's and no empty event
 *     array (which the entry would fill and uninstall then remove),
 *     install then uninstall gives the original JSON back;
 *   - install and uninstall refuse the same shapes.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../sidecar/hookinstall.h"
#include "../../sidecar/udiff.h"
#include "../unit/udiff-apply.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static json_t *
copy(const json_t *j)
{
	json_t *c = json_deep_copy(j);

	if (c == NULL)
		abort();
	return c;
}

/* nothing install fills that uninstall would then remove */
static bool
plain(const json_t *doc, enum kb_agent a)
{
	const json_t *hooks = json_object_get(doc, "hooks");
	size_t n;
	const struct kb_hookinstall_entry *en = kb_hookinstall_entries(a, &n);

	if (a == KB_AGENT_CURSOR && json_object_get(doc, "version") == NULL)
		return false;
	if (hooks == NULL)
		return true;
	if (json_object_size(hooks) == 0)
		return false;
	for (size_t i = 0; i < n; i++) {
		const json_t *arr = json_object_get(hooks, en[i].event);

		if (arr != NULL && json_array_size(arr) == 0)
			return false;
	}
	return true;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kb_hookinstall_report r = {0};
	struct kb_err e;
	enum kb_agent a;
	json_t *doc, *one, *two, *u, *u0;
	char *cmd, *t0, *t1, *d, *back;
	int got_i, got_u;

	if (size < 1)
		return 0;
	a = (enum kb_agent)(data[0] % 4);
	doc = kb_hookinstall_parse((const char *)data + 1, size - 1, &e);
	if (doc == NULL)
		return 0;
	cmd = kb_hookinstall_command("/usr/local/bin/kinpolicy", a);
	one = copy(doc);
	got_i = kb_hookinstall_install(one, a, cmd, &r, &e);
	kb_hookinstall_report_free(&r);
	u0 = copy(doc);
	got_u = kb_hookinstall_uninstall(u0, a, &r, &e);
	kb_hookinstall_report_free(&r);
	/* the same shapes refused (Cursor's version is install's alone) */
	if (got_i == 0 && got_u == -1)
		abort();
	if (got_i == -1 && got_u == 0 && a != KB_AGENT_CURSOR)
		abort();
	if (got_i == 0) {
		two = copy(one);
		if (kb_hookinstall_install(two, a, cmd, &r, &e) != 0 ||
		    !json_equal(one, two) || kb_hookinstall_changed(&r))
			abort();
		kb_hookinstall_report_free(&r);
		json_decref(two);

		t0 = kb_hookinstall_dump(doc);
		t1 = kb_hookinstall_dump(one);
		two = kb_hookinstall_parse(t1, strlen(t1), &e);
		if (two == NULL || !json_equal(two, one))
			abort();
		json_decref(two);
		d = kb_udiff("a", t0, "b", t1);
		back = ua_apply(t0, d);
		if (back == NULL || strcmp(back, t1) != 0)
			abort();
		free(back);
		free(d);
		free(t0);
		free(t1);

		u = copy(one);
		if (kb_hookinstall_uninstall(u, a, &r, &e) != 0)
			abort();
		kb_hookinstall_report_free(&r);
		if (kb_hookinstall_uninstall(u, a, &r, &e) != 0 || r.n != 0)
			abort();
		kb_hookinstall_report_free(&r);
		if (json_equal(u0, doc) && plain(doc, a) && !json_equal(u, doc))
			abort();
		json_decref(u);
	}
	json_decref(u0);
	json_decref(one);
	json_decref(doc);
	free(cmd);
	return 0;
}
