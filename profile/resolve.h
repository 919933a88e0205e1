/*
 * profile/resolve.h — where a write to a path lands. One answer for every
 * stage that asks: the gate's check-write (sidecar/checkwrite.c), the
 * classifier's questions to the host (classify/oracle.c), the journal's and
 * the stores' "could the command write this?" (profile/journal.c,
 * profile/stores.c).
 *
 * A write to P lands at the real location of P's nearest existing
 * ancestor plus the remaining components, with symlinks followed as the
 * kernel follows them: every existing component through realpath(3), a
 * dangling symlink through its target (open(O_CREAT) creates the target),
 * a symlink as the last component too (open(O_CREAT) follows it), and
 * ".." taken after the symlinks before it (ws/link/.. is the parent of
 * the link's target). From the first missing component on, the rest is
 * text, where a ".." only takes back what the text added; the kernel
 * would stop there (ENOENT), a tool that cleans the path first would not,
 * so once back on existing ground the symlinks count again.
 *
 * Paths only: the policy's roots are profile/policy.c's, which asks here
 * (kb_policy_root_of, kb_policy_writable in profile/policy.h).
 */
#ifndef KB_RESOLVE_H
#define KB_RESOLVE_H

#include <stdbool.h>
#include <stddef.h>

/* kb_resolve_write() flags */
#define KB_RESOLVE_NOFOLLOW                                                    \
	0x1u /* a symlink as the last component is not                         \
		followed: where the directory entry is                         \
		(what unlink, rename or O_NOFOLLOW act                         \
		on), not where a write through it lands */

/*
 * Where a write to `path` lands, into `out` (`outlen` bytes): absolute,
 * canonical, no symlink in it (but a missing tail). A relative `path` is
 * taken against `cwd`, which must then be absolute. 0, or -1 with errno:
 * EINVAL (relative without an absolute cwd), ENOENT (empty path),
 * ENAMETOOLONG, ELOOP (more than 40 dangling links followed, or a loop),
 * EACCES (a directory that cannot be searched).
 */
int kb_resolve_write(const char *path, const char *cwd, unsigned flags,
    char *out, size_t outlen);

/* The absolute `path` with "." and ".." applied to the text, as a tool's
 * path.resolve() does it: no file system access, no "//", no trailing
 * slash. 0, or -1 with errno EINVAL (not absolute) or ENAMETOOLONG. */
int kb_resolve_lexical(const char *path, char *out, size_t outlen);

/* The first of `roots` (canonical; a NULL entry is skipped) that holds
 * the canonical `landing` (kb_path_within), or NULL. */
const char *kb_resolve_root(
    const char *landing, const char *const *roots, size_t nroots);

#endif
