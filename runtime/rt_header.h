/* rt_header: the text of gpuc.h, compiled before every host cell: the
 * standard headers a notebook expects, the display API, and the helpers
 * the generated code calls (__gpuc_show_*). */
#ifndef RT_HEADER_H
#define RT_HEADER_H

/* The whole header as C source; static. */
extern const char rt_header_text[];

#endif
