/*
 * tests/unit/test-gitindex.c — the index reader (gitguard/gitindex.c) on
 * indexes written by the real git, versions 2, 3 and 4, and on damaged
 * ones (truncated, wrong magic, garbage): found gitlinks, or a clean -1.
 */
#include <fcntl.h>
#include <stdbool.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../gitguard/gitguard.h"
#include "tap.h"

static char base[PATH_MAX];

static int
sh(const char *cmd)
{
	char *full = xasprintf("cd '%s' && (%s) >/dev/null 2>&1", base, cmd);
	int rc = system(full);

	free(full);
	return rc;
}

int
main(void)
{
	char tmpl[] = "/tmp/kb-test-gitindex.XXXXXX";
	char *index;
	struct kb_strv links = { 0 };

	if (mkdtemp(tmpl) == NULL || realpath(tmpl, base) == NULL)
		return 1;
	index = xasprintf("%s/super/.git/index", base);
	if (sh("command -v git") != 0) {
		tap_skip("git is not installed: the index reader is tested "
			 "on git's own files only");
		return tap_done();
	}
	ok(sh("export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null "
	      "GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@t GIT_COMMITTER_NAME=t "
	      "GIT_COMMITTER_EMAIL=t@t; git init -q super && cd super && "
	      "echo a > a && mkdir -p deep/er && echo b > deep/er/b && "
	      "git init -q deep/er/emb && git -C deep/er/emb commit -q "
	      "--allow-empty -m x && git init -q sub && git -C sub commit "
	      "-q --allow-empty -m y && git add a deep sub") == 0,
	    "a repository with two embedded repositories");
	for (int v = 2; v <= 4; v++) {
		char *cmd = xasprintf("cd super && git update-index "
				      "--index-version %d", v);

		kb_strv_free(&links);
		ok(sh(cmd) == 0, "index version %d written by git", v);
		free(cmd);
		ok(kb_git_index_gitlinks(index, &links) == 0 &&
			links.n == 2 &&
			strcmp(links.v[0], "deep/er/emb") == 0 &&
			strcmp(links.v[1], "sub") == 0,
		    "version %d: the two gitlinks, nothing else (%zu)", v,
		    links.n);
	}
	kb_strv_free(&links);
	/* an index far larger than the reader's 64 KiB window: 4000 files
	 * (some with 200-byte names), gitlinks spread through it, so that
	 * entries straddle every refill */
	{
		char *big = xasprintf("%s/big/.git/index", base);
		bool all = true;

		ok(sh("export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null; "
		      "git init -q big && cd big && "
		      "long=$(printf 'n%.0s' $(seq 200)) && "
		      "for i in $(seq 4000); do "
		      "  if [ $((i % 7)) = 0 ]; then echo > d$i-$long; "
		      "  else echo > f$i; fi; done && git add . && "
		      "for i in 1 1333 2999 4000; do git update-index --add "
		      "--cacheinfo 160000,"
		      "1111111111111111111111111111111111111111,sub$i; done") ==
			0,
		    "a 4000-file index with 4 gitlinks written by git");
		for (int v = 2; v <= 4; v++) {
			char *cmd = xasprintf("cd big && git update-index "
					      "--index-version %d", v);

			kb_strv_free(&links);
			all &= sh(cmd) == 0 &&
			       kb_git_index_gitlinks(big, &links) == 0 &&
			       links.n == 4 && strcmp(links.v[0], "sub1") == 0 &&
			       strcmp(links.v[1], "sub1333") == 0 &&
			       strcmp(links.v[2], "sub2999") == 0 &&
			       strcmp(links.v[3], "sub4000") == 0;
			free(cmd);
		}
		ok(all, "versions 2, 3, 4 of it: the 4 gitlinks, in order");
		kb_strv_free(&links);
		free(big);
	}
	ok(sh("head -c 100 super/.git/index > cut && mv cut super/.git/index")
		    == 0 &&
		kb_git_index_gitlinks(index, &links) == -1,
	    "a truncated index is refused, not misread");
	ok(sh("printf 'XXXX\\0\\0\\0\\2\\0\\0\\0\\1' > super/.git/index") == 0 &&
		kb_git_index_gitlinks(index, &links) == -1,
	    "a wrong signature is refused");
	ok(sh("printf 'DIRC\\0\\0\\0\\2\\377\\377\\377\\377' > super/.git/index")
		    == 0 &&
		kb_git_index_gitlinks(index, &links) == -1,
	    "an entry count beyond the file is refused");
	ok(kb_git_index_gitlinks("/nonexistent/index", &links) == -1,
	    "a missing index is -1");
	kb_strv_free(&links);
	free(index);
	{
		char *cmd = xasprintf("rm -rf '%s'", base);
		if (system(cmd) != 0)
			return 1;
		free(cmd);
	}
	return tap_done();
}
