/*
 * sidecar/udiff.h — a unified diff of two texts, line by line (Myers' O(ND)
 * algorithm), for kinpolicy hook install --dry-run: what the settings file
 * would become. Pure: no I/O.
 */
#ifndef KB_UDIFF_H
#define KB_UDIFF_H

/*
 * The unified diff (3 lines of context) that turns `a` into `b`, with the
 * headers "--- a_name" and "+++ b_name"; "" when the texts are equal. A
 * last line without a newline is marked "\ No newline at end of file".
 * When the texts differ in more than KB_UDIFF_MAX_EDITS lines, the changed
 * middle is one hunk that removes it and adds the new one (still a correct
 * diff, only not the shortest). A new string.
 */
#define KB_UDIFF_MAX_EDITS 2000
char *kb_udiff(
    const char *a_name, const char *a, const char *b_name, const char *b);

#endif
