/*
 * tests/fuzz/fuzz-gitindex.c — libFuzzer target: the git index reader
 * (gitguard/gitindex.c) on arbitrary bytes, as a command could leave them
 * in .git/index before kinbox reads it outside the sandbox.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

#include "../../gitguard/gitguard.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char path[64];
	struct kb_strv links = { 0 };
	int fd;

	if (path[0] == '\0')
		snprintf(path, sizeof(path), "/tmp/kb-fuzz-index.%d",
		    (int)getpid());
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd == -1)
		return 0;
	if (write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return 0;
	}
	close(fd);
	kb_git_index_gitlinks(path, &links);
	kb_strv_free(&links);
	return 0;
}
