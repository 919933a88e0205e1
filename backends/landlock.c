/*
 * backends/landlock.c — the Landlock ABI probe. The ruleset itself is
 * applied inside the sandbox by kinbox-exec (after bwrap has finished its
 * mounts, which a Landlock domain would forbid), so this file only tells
 * the planner what the kernel can enforce.
 */
#include <sys/syscall.h>
#include <unistd.h>

#include "backend.h"

#ifndef SYS_landlock_create_ruleset
#define SYS_landlock_create_ruleset 444
#endif
#define KB_LANDLOCK_CREATE_RULESET_VERSION (1U << 0)

int
kb_landlock_abi(void)
{
	long abi = syscall(SYS_landlock_create_ruleset, NULL, 0,
	    KB_LANDLOCK_CREATE_RULESET_VERSION);

	return abi < 0 ? 0 : (int)abi;
}
