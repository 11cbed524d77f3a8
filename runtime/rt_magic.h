/* rt_magic: the magics of host cells. A line magic (`%name args`) stands
 * on its own line of a host cell; a cell magic (`%%name args`) is the
 * first line of its cell. The table of magics lives in rt_magic.c. */
#ifndef RT_MAGIC_H
#define RT_MAGIC_H

#include <stddef.h>

typedef struct rt_magic_info {
    const char *name;  /* without % */
    int cell;          /* 1 for a cell magic (%%name), 0 for a line magic */
    const char *usage; /* "%lib NAME" */
    const char *help;  /* one paragraph, shown by %name? */
} rt_magic_info_t;

/* The magics gpuc knows, in the order %lsmagic lists them; *n gets the
 * count. Borrowed, static. */
const rt_magic_info_t *rt_magic_table(size_t *n);

#endif
