/*
 * tests/fuzz/fuzz-gitconfig.c — libFuzzer target: the git config reader
 * (profile/gitconfig.c) on arbitrary bytes. Besides "no crash, no leak, no
 * hang" it checks what the audit relies on, and aborts when it does not
 * hold:
 *   - the neutral config of anything is a fixed point (neutralising it
 *     again changes nothing), so a replaced config is not replaced again;
 *   - it holds no key that makes git run a program.
 */
#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../gitguard/gitconfig.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const forbidden[] = { "fsmonitor", "hookspath", "command",
	"driver", "textconv", "clean", "smudge", "process", "pager", "editor",
	"sshcommand", "helper", "program", "include", "alias", "!" };

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *in = malloc(size + 1), *n1, *n2, *v;

	if (in == NULL)
		return 0;
	memcpy(in, data, size);
	in[size] = '\0';
	n1 = kb_gitcfg_neutral(in);
	n2 = kb_gitcfg_neutral(n1);
	if (strcmp(n1, n2) != 0)
		abort();
	for (char *c = n1; *c; c++)
		*c = (char)tolower((unsigned char)*c);
	for (size_t i = 0; i < sizeof(forbidden) / sizeof(forbidden[0]); i++) {
		/* remote URLs may hold any of these words as text */
		char *hit = strstr(n1, forbidden[i]);

		while (hit != NULL) {
			char *line = hit;

			while (line > n1 && line[-1] != '\n')
				line--;
			if (strncmp(line, "\turl = ", 7) != 0 &&
			    strncmp(line, "\tfetch = ", 9) != 0 &&
			    strncmp(line, "\tmerge = ", 9) != 0 &&
			    strncmp(line, "\tremote = ", 10) != 0 &&
			    strncmp(line, "\tworktree = ", 12) != 0 &&
			    strncmp(line, "[remote \"", 9) != 0 &&
			    strncmp(line, "[branch \"", 9) != 0)
				abort();
			hit = strstr(hit + 1, forbidden[i]);
		}
	}
	v = kb_gitcfg_get(in, "core", "hookspath");
	free(v);
	free(n1);
	free(n2);
	free(in);
	return 0;
}
