/* rt_docs: short documentation of the C standard library functions a
 * notebook uses most and of gpuc's display API, for inspect_request.
 * The texts are gpuc's own, written for this table. */
#ifndef RT_DOCS_H
#define RT_DOCS_H

typedef struct rt_doc {
    const char *name;
    const char *header;     /* "stdio.h", "gpuc.h" */
    const char *prototype;  /* "int printf(const char *format, ...);" */
    const char *text;       /* one or two sentences */
} rt_doc_t;

/* The documentation of name, or NULL. Borrowed, static. */
const rt_doc_t *rt_docs_find(const char *name);

#endif
