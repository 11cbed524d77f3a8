/* jk_spool: records (a tag, a number, a text) appended to a file of their
 * own and read back whole, so that what a session must keep per cell (its
 * history, the %recover journal) is on disk, not in the kernel's memory.
 *
 * The file is anonymous (O_TMPFILE in $TMPDIR or /tmp, else an unlinked
 * temporary file, else a memfd): it goes with the process and nothing is
 * left behind. Used from one thread. */
#ifndef JK_SPOOL_H
#define JK_SPOOL_H

#include <stddef.h>

typedef struct jk_spool jk_spool_t;

/* A record as read back: text is NUL-terminated and borrowed from the
 * jk_spool_read buffer. */
typedef struct jk_spool_record {
    char tag;
    int number;
    const char *text;
    size_t len;
} jk_spool_record_t;

/* A new, empty spool; NULL when no file can be made. */
jk_spool_t *jk_spool_new(void);

void jk_spool_free(jk_spool_t *sp);

/* Appends a record (text copied). Returns 0, or -1 (the disk is full). */
int jk_spool_add(jk_spool_t *sp, char tag, int number, const char *text, size_t len);

/* Drops every record. Returns 0, or -1. */
int jk_spool_clear(jk_spool_t *sp);

/* Every record in the order added: returns an array of *n records (free it
 * with free()) whose texts live in *buf (free it with free()), or NULL with
 * *n = 0 when there are none or on failure. */
jk_spool_record_t *jk_spool_read(const jk_spool_t *sp, size_t *n, char **buf);

#endif
