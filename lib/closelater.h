/*
 * lib/closelater.h — descriptors whose last close is slow, closed after
 * kinbox's caller has stopped waiting.
 *
 * Some last closes wait for the kernel: a fanotify group that had a
 * filesystem mark waits for an SRCU grace period (5 to 15 ms measured),
 * and a /proc/PID/mountinfo descriptor that holds the last reference to
 * a dead sandbox's mount namespace tears all its mounts down. kinbox
 * hands such a descriptor to kb_close_later() instead of close(), and
 * calls kb_close_later_flush() once, when it is done with them: a child
 * that shares kinbox's memory (CLONE_VM: no page tables copied) but not
 * its descriptor table keeps those alone, waits until kinbox has let go
 * of them, closes them and exits. Nothing waits for it; whoever inherits
 * it reaps it. Where the child cannot be made, the descriptors are
 * closed in place (slow, not wrong); a kinbox that exits without the
 * flush closes them at its exit.
 */
#ifndef KB_CLOSELATER_H
#define KB_CLOSELATER_H

/* Keeps fd (-1 is ignored) for kb_close_later_flush(); past the table
 * (16), it is closed in place. The caller no longer uses it. */
void kb_close_later(int fd);

/* Closes every kept descriptor in a child (see above). Idempotent. */
void kb_close_later_flush(void);

#endif
