/* jk_journal: the cells that built the current executor's session, so that
 * `%recover` can build it again after the executor had to be replaced (a
 * fault that could not be caught, exit(), a lost GPU context).
 *
 * Each cell that succeeds is recorded with its number; when the executor
 * is replaced the record becomes what %recover replays (in order; the cell
 * that killed it never succeeded, so it is not there) and a new record
 * starts. The cells' code is kept in anonymous files (jk_spool), not in
 * memory: it is read only when an executor is replaced or recovered. Used
 * from the shell thread only. */
#ifndef JK_JOURNAL_H
#define JK_JOURNAL_H

#include <stddef.h>

#include "jk_spool.h"

typedef struct jk_journal_entry {
    int cell;         /* its execution number */
    const char *code; /* borrowed from the buffer jk_journal_take_recover gives */
} jk_journal_entry_t;

/* Zero-initialised is empty. Both records are in one file (one
 * descriptor, made at the first cell): 'L' records are live, 'R' ones
 * recoverable. */
typedef struct jk_journal {
    jk_spool_t *spool;
    size_t nlive;         /* the current executor's cells */
    size_t nrecover;      /* the last replaced executor's, for %recover */
} jk_journal_t;

/* A cell that succeeded in the current executor (code copied). */
void jk_journal_add(jk_journal_t *j, int cell, const char *code);

/* The executor was replaced: what it had becomes recoverable (added to
 * what was recoverable before and not yet recovered), the live record
 * starts empty. */
void jk_journal_replaced(jk_journal_t *j);

/* Takes what is recoverable, in order: an array of *n entries (free() it)
 * whose code lives in *buf (free() it, after the entries are used), or
 * NULL with *n = 0. Nothing is recoverable afterwards. */
jk_journal_entry_t *jk_journal_take_recover(jk_journal_t *j, size_t *n, char **buf);

/* Non-zero when code is a %recover cell (the magic alone on its line). */
int jk_journal_is_recover(const char *code);

void jk_journal_free(jk_journal_t *j);

#endif
