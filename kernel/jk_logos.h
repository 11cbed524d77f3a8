/* jk_logos: the kernelspec logos, embedded in the binary so that
 * `gpuc install` works from a bundle without the source tree.
 *
 * The table is generated at build time from kernelspec/logo-* by CMake
 * (build/generated/jk_logos.c, see the end of CMakeLists.txt). */
#ifndef JK_LOGOS_H
#define JK_LOGOS_H

#include <stddef.h>

typedef struct jk_logo {
    const char *name;           /* file name in the kernelspec, "logo-32x32.png" */
    const unsigned char *bytes; /* the file's contents (static) */
    size_t size;                /* in bytes */
} jk_logo_t;

extern const jk_logo_t jk_logos[];
extern const size_t jk_logo_count;

#endif
