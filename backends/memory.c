/*
 * backends/memory.c — the memory budget split over the bwrap backend's
 * tmpfs mounts (backend.h). tmpfs pages belong to no process: when the
 * host runs out of memory the OOM killer cannot find them and kills the
 * user's other processes instead. So every tmpfs the sandbox can write
 * gets a size and an inode limit, and together they stay within the
 * budget: a write past its mount's limits fails with ENOSPC inside the
 * sandbox. An inode is counted at KB_INODE_COST (a tmpfs inode and its
 * dentry take about that much kernel memory, which size= does not count).
 *
 * The small mounts (bwrap's /dev, the masks, the absent hooks
 * directories) get fixed limits; of the budget a 16th is kept for them
 * (or what they take, when that is more). Of the rest, /dev/shm gets an
 * 8th, the caches a quarter between them (when there are any: the
 * ephemeral caches' upper layer counts as one, each empty cache as one)
 * and /tmp the rest.
 */
#include <sys/sysinfo.h>

#include "backend.h"

#define SMALL_SIZE   (64ULL << 10) /* a mask's or /dev's data */
#define SMALL_INODES 64ULL         /* and its inodes, the root among them */
#define DEV_INODES   32ULL         /* what bwrap's --dev makes: 15 or so */
#define RO_SIZE      4096ULL       /* an absent hooks dir: read-only */
#define RO_INODES    8ULL
#define PAGE         4096ULL
#define TMP_LEAST    (4ULL << 20)

unsigned long long
kb_memory_cost(unsigned long long size, unsigned long long inodes)
{
	return size + inodes * KB_INODE_COST;
}

void
kb_memory_small(enum kb_tmpfs_kind kind, unsigned long long below,
    unsigned long long *size, unsigned long long *inodes)
{
	switch (kind) {
	case KB_TMPFS_RO:
		*size = RO_SIZE;
		*inodes = RO_INODES + below;
		return;
	case KB_TMPFS_DEV:
		*size = SMALL_SIZE;
		*inodes = DEV_INODES + SMALL_INODES + below;
		return;
	case KB_TMPFS_MASK:
	case KB_TMPFS_TMP:
	case KB_TMPFS_SHM:
	case KB_TMPFS_CACHE:
		break;
	}
	*size = SMALL_SIZE;
	*inodes = SMALL_INODES + below;
}

int
kb_memory_split(unsigned long long budget, unsigned long long small,
    size_t ncache, struct kb_memsplit *out)
{
	unsigned long long rest;

	out->reserve = budget / 16 > small ? budget / 16 : small;
	if (out->reserve >= budget || budget - out->reserve < TMP_LEAST * 2)
		return -1;
	rest = budget - out->reserve;
	out->shm = rest / 8;
	out->cache = ncache > 0 ? rest / 4 / ncache : 0;
	out->tmp = rest - out->shm - out->cache * ncache;
	return out->tmp < TMP_LEAST ? -1 : 0;
}

void
kb_memory_limits(unsigned long long share, unsigned long long below,
    unsigned long long *size, unsigned long long *inodes)
{
	unsigned long long n = share / (8 * 1024);

	if (n < below + SMALL_INODES)
		n = below + SMALL_INODES;
	*inodes = n;
	*size = n * KB_INODE_COST < share ? share - n * KB_INODE_COST : 0;
	*size &= ~(PAGE - 1);
}

unsigned long long
kb_host_mem_total(void)
{
	struct sysinfo si;

	if (sysinfo(&si) == -1 || si.mem_unit == 0)
		return 0;
	return (unsigned long long)si.totalram * si.mem_unit;
}
