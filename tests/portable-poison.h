/*
 * tests/portable-poison.h — forced on the portable set by `make
 * portable-check` (-include, before the file's first line): the standard
 * headers first, as POSIX.1-2008 declares them, then every Linux-only (or
 * glibc-only) interface kinbox uses elsewhere poisoned, so that naming one
 * in a portable file, or including a header that declares one, is an
 * error. The headers must come first: poisoning a name a system header
 * declares later would break that header, not the file that uses it.
 *
 * Not poisoned: what POSIX.1-2008 has and macOS too (F_DUPFD_CLOEXEC,
 * O_CLOEXEC, posix_openpt, ...). A name not listed here and not in POSIX
 * is still caught when undeclared: -Werror=implicit-function-declaration.
 */
#ifndef KB_PORTABLE_POISON_H
#define KB_PORTABLE_POISON_H

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

/* a portable file that defines these itself defeats the check */
#if defined(_GNU_SOURCE) || defined(_DEFAULT_SOURCE) || defined(_BSD_SOURCE)
#error                                                                         \
    "portable-check: a GNU/BSD feature macro is defined; the set must build as POSIX.1-2008"
#endif

/* clang-format off */
/* descriptors, processes and namespaces */
#pragma GCC poison signalfd eventfd timerfd_create timerfd_settime
#pragma GCC poison inotify_init inotify_init1 inotify_add_watch inotify_rm_watch
#pragma GCC poison memfd_create pidfd_open pidfd_send_signal pidfd_getfd
#pragma GCC poison close_range openat2 pipe2 dup3 accept4 syscall
#pragma GCC poison prctl unshare setns clone clone3 vfork
#pragma GCC poison landlock_create_ruleset landlock_add_rule landlock_restrict_self
#pragma GCC poison seccomp splice tee vmsplice sendfile copy_file_range
#pragma GCC poison epoll_create epoll_create1 epoll_ctl epoll_wait epoll_pwait
#pragma GCC poison ppoll renameat2 statx getrandom gettid execvpe
#pragma GCC poison sendmmsg recvmmsg sched_setaffinity mkostemp
/* glibc's string and stdio extras */
#pragma GCC poison reallocarray vasprintf asprintf strchrnul memrchr mempcpy
#pragma GCC poison ptsname_r get_current_dir_name secure_getenv
#pragma GCC poison program_invocation_name program_invocation_short_name
/* flags; glibc defines these three even for POSIX.1-2008 (as enum
 * constants with a macro of the same name): the macro goes, then the name */
#undef SOCK_CLOEXEC
#undef SOCK_NONBLOCK
#undef SI_KERNEL
#pragma GCC poison O_PATH O_TMPFILE O_DIRECT O_NOATIME SOCK_CLOEXEC SOCK_NONBLOCK
#pragma GCC poison F_SETPIPE_SZ F_GETPIPE_SZ MFD_CLOEXEC SFD_CLOEXEC SFD_NONBLOCK
#pragma GCC poison RESOLVE_BENEATH RESOLVE_NO_SYMLINKS PR_SET_PDEATHSIG
#pragma GCC poison PR_SET_CHILD_SUBREAPER PR_SET_NO_NEW_PRIVS SI_KERNEL
/* clang-format on */

#endif
