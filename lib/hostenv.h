/*
 * lib/hostenv.h — the environment of what kinbox runs on the host.
 *
 * Every process kinbox starts outside the sandbox (bwrap, kinbox-exec
 * under the landlock backend, the probes of --status) gets kb_host_envp
 * and / as its working directory: the caller's environment is the
 * command's, and its loader variables may name files the command wrote.
 * The command's environment reaches the command through a sealed memfd
 * that kinbox-exec reads (--env FD), never through the backend's own.
 */
#ifndef KB_HOSTENV_H
#define KB_HOSTENV_H

#include <stdbool.h>

/* PATH=/usr/sbin:/usr/bin:/sbin:/bin and nothing else */
extern char *const kb_host_envp[];

/* Is NAME=VALUE (or a bare NAME) a variable that the dynamic loader or
 * glibc reads to load, find or configure code or data: the LD_ family,
 * glibc's unsecure-envvars list, the MALLOC_ family? */
bool kb_env_loader_var(const char *kv);

/* envfd.c: a sealed memfd holding envp's entries, each NUL-terminated
 * (CLOEXEC); -1 with errno on failure. */
int kb_env_memfd(char *const *envp);

/* envfd.c: the entries of such a memfd as an environment vector that
 * lives as long as the process; NULL with errno (EINVAL: not a regular
 * file, larger than 64 MiB, or cut short). */
char **kb_env_read(int fd);

/*
 * kinbox itself: called first in main(). When the caller's environment
 * holds a loader variable, kinbox re-executes itself (/proc/self/exe)
 * without them, carrying the whole caller's environment in a memfd named
 * by KINBOX_CALLER_ENV_FD, so that glibc's lazy loads in kinbox (NSS
 * modules, gconv) never follow them; the re-executed kinbox reads it
 * back. Returns the caller's environment (to build the command's from);
 * kinbox's own `environ` is then free of loader variables. Exits 125 with
 * one line when this cannot be done.
 */
char **kb_self_env_guard(char **argv);

#endif
