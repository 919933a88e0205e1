/*
 * tests/unit/tap.h — a minimal TAP producer for the C unit tests, in the
 * spirit of bubblewrap's test-utils.c: ok(), assert_cmpstr/int, done().
 */
#ifndef KB_TAP_H
#define KB_TAP_H

#include <stdio.h>
#include <string.h>

static int tap_n, tap_failed, tap_skipped, tap_todo;

#define ok(cond, ...)                                                  \
	do {                                                           \
		int c_ = !!(cond);                                     \
		tap_n++;                                               \
		if (c_) {                                              \
			printf("ok %d - ", tap_n);                     \
		} else {                                               \
			tap_failed++;                                  \
			printf("not ok %d - ", tap_n);                 \
		}                                                      \
		printf(__VA_ARGS__);                                   \
		printf("\n");                                          \
		if (!c_)                                               \
			printf("#   at %s:%d\n", __FILE__, __LINE__);      \
	} while (0)

#define assert_cmpstr(a, b, ...)                                       \
	do {                                                           \
		const char *a_ = (a), *b_ = (b);                       \
		int eq_ = (a_ == NULL && b_ == NULL) ||                \
		    (a_ != NULL && b_ != NULL && strcmp(a_, b_) == 0); \
		ok(eq_, __VA_ARGS__);                                  \
		if (!eq_)                                              \
			printf("#   got '%s', want '%s'\n",            \
			    a_ ? a_ : "(null)", b_ ? b_ : "(null)");   \
	} while (0)

#define assert_cmpint(a, b, ...)                                       \
	do {                                                           \
		long a_ = (long)(a), b_ = (long)(b);                   \
		ok(a_ == b_, __VA_ARGS__);                             \
		if (a_ != b_)                                          \
			printf("#   got %ld, want %ld\n", a_, b_);     \
	} while (0)

/* A skip is reported as such and never counted as a pass. */
#define tap_skip(...)                                                  \
	do {                                                           \
		tap_n++;                                               \
		tap_skipped++;                                         \
		printf("ok %d # SKIP ", tap_n);                        \
		printf(__VA_ARGS__);                                   \
		printf("\n");                                          \
	} while (0)

/*
 * A check of behaviour believed right that the code does not have yet:
 * TAP's "# TODO" directive, reported but never a failure of the run (an
 * unexpected pass says so, to be turned into ok()).
 */
#define tap_todo_ok(cond, why, ...)                                    \
	do {                                                           \
		int c_ = !!(cond);                                     \
		tap_n++;                                               \
		tap_todo++;                                            \
		printf("%sok %d - ", c_ ? "" : "not ", tap_n);         \
		printf(__VA_ARGS__);                                   \
		printf(" # TODO %s%s\n", why,                          \
		    c_ ? " (passes now: make it an ok())" : "");       \
	} while (0)

static inline int
tap_done(void)
{
	printf("1..%d\n", tap_n);
	printf("%d passed, %d failed, %d skipped", tap_n - tap_failed -
	    tap_skipped - tap_todo, tap_failed, tap_skipped);
	if (tap_todo > 0)
		printf(", %d todo", tap_todo);
	printf("\n");
	return tap_failed ? 1 : 0;
}

#endif
