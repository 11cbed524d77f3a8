/* check.h: the assertions of the unit tests. A failed CHECK prints the
 * file, line and expression and makes the test exit non-zero at the end. */
#ifndef CHECK_H
#define CHECK_H

#include <stdio.h>
#include <string.h>

static int check_failures;
static int check_count;

#define CHECK(cond)                                                                \
    do {                                                                           \
        check_count++;                                                             \
        if (!(cond)) {                                                             \
            check_failures++;                                                      \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
        }                                                                          \
    } while (0)

#define CHECK_STR(a, b)                                                                   \
    do {                                                                                  \
        check_count++;                                                                    \
        const char *a_ = (a), *b_ = (b);                                                  \
        if (!a_ || !b_ || strcmp(a_, b_) != 0) {                                          \
            check_failures++;                                                             \
            fprintf(stderr, "%s:%d: CHECK_STR failed: %s\n  got:      %s\n  expected: %s\n", \
                    __FILE__, __LINE__, #a, a_ ? a_ : "(null)", b_ ? b_ : "(null)");       \
        }                                                                                 \
    } while (0)

static inline int check_report(const char *name)
{
    printf("%s: %d checks, %d failed\n", name, check_count, check_failures);
    return check_failures ? 1 : 0;
}

#endif
