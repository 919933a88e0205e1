/*
 * profile/completion.h — `kinbox completion bash|zsh`: a shell completion
 * script generated from the option table (profile/option-table.c), so that
 * every flag kinbox parses is one the script offers, and no other.
 */
#ifndef KB_COMPLETION_H
#define KB_COMPLETION_H

#include <stdio.h>

/* Writes the completion script for `shell` ("bash" or "zsh") to `f`.
 * 0, or -1 (nothing written) for another shell. */
int kb_completion_print(FILE *f, const char *shell);

#endif
