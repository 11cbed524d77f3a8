/* rt_options: what %cflags and %lib set for every later compile — TCC
 * options and the libraries linked into cells. The magics change it, the
 * session and %%cc read it; after a change the session is told
 * (rt_session_options_changed) so that compiles pick it up. */
#ifndef RT_OPTIONS_H
#define RT_OPTIONS_H

#include <stddef.h>

#include "cm_buf.h"

typedef struct rt_options {
    cm_names_t cflags;    /* %cflags options, one a string, in order */
    cm_names_t lib_names; /* %lib names as given ("z") */
    cm_names_t lib_paths; /* the files they were loaded from, same order */
} rt_options_t;

/* Adds one option; a -D or -U replaces an earlier one of the same macro
 * (TCC would warn that it is redefined, in every cell); an option given
 * twice is kept once. */
void rt_options_add_cflag(rt_options_t *o, const char *opt);

/* Loads library `name` ("z", "libz.so", "-lz" or a path) for good, with
 * its symbols global, and records it (once). Returns 0, or -1 with why[]
 * set to what was tried. The library stays loaded even after a reset:
 * code compiled against it may run at any time. */
int rt_options_add_library(rt_options_t *o, const char *name, char *why, size_t size);

/* The cflags joined by blanks, as TCC takes them (a new string), or NULL
 * when there are none. */
char *rt_options_cflags_text(const rt_options_t *o);

/* Forgets every option and library name (the libraries stay loaded). */
void rt_options_clear(rt_options_t *o);

#endif
