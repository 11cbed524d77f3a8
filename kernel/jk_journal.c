/* jk_journal: the cells %recover replays (see jk_journal.h). */
#include "jk_journal.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

enum { LIVE = 'L', RECOVER = 'R' };

void jk_journal_add(jk_journal_t *j, int cell, const char *code)
{
    if (!j->spool)
        j->spool = jk_spool_new();
    if (j->spool && jk_spool_add(j->spool, LIVE, cell, code, strlen(code)) == 0)
        j->nlive++;
}

/* Writes the file again from what it held (n records r), keeping those
 * of tag keep as they are and making the live ones recoverable when
 * to_recover is set (else dropping the recoverable ones). */
static void rewrite(jk_journal_t *j, const jk_spool_record_t *r, size_t n, int to_recover)
{
    jk_spool_clear(j->spool);
    j->nlive = j->nrecover = 0;
    for (size_t i = 0; i < n; i++) {
        if (r[i].tag == RECOVER && !to_recover)
            continue;
        if (r[i].tag == RECOVER) {
            /* cells recovered into the dead executor are in its live
             * record too: what was recoverable is replaced, not added to */
            int replayed = 0;
            for (size_t k = 0; k < n && !replayed; k++)
                replayed = r[k].tag == LIVE && r[k].number == r[i].number;
            if (replayed)
                continue;
        }
        char tag = to_recover ? RECOVER : LIVE;
        if (jk_spool_add(j->spool, tag, r[i].number, r[i].text, r[i].len) == 0)
            *(tag == RECOVER ? &j->nrecover : &j->nlive) += 1;
    }
}

void jk_journal_replaced(jk_journal_t *j)
{
    if (!j->nlive)
        return;
    size_t n;
    char *buf;
    jk_spool_record_t *r = jk_spool_read(j->spool, &n, &buf);
    /* the recoverable ones first: they are older */
    jk_spool_record_t *ordered = r ? malloc(n * sizeof *ordered) : NULL;
    size_t m = 0;
    for (size_t pass = 0; ordered && pass < 2; pass++)
        for (size_t i = 0; i < n; i++)
            if ((r[i].tag == RECOVER) == (pass == 0))
                ordered[m++] = r[i];
    if (ordered)
        rewrite(j, ordered, m, 1);
    free(ordered);
    free(r);
    free(buf);
}

jk_journal_entry_t *jk_journal_take_recover(jk_journal_t *j, size_t *n, char **buf)
{
    *n = 0;
    *buf = NULL;
    if (!j->nrecover)
        return NULL;
    size_t all;
    jk_spool_record_t *r = jk_spool_read(j->spool, &all, buf);
    jk_journal_entry_t *v = r ? malloc(all * sizeof *v) : NULL;
    for (size_t i = 0; v && i < all; i++)
        if (r[i].tag == RECOVER)
            v[(*n)++] = (jk_journal_entry_t){r[i].number, r[i].text};
    if (r)
        rewrite(j, r, all, 0); /* the live ones stay */
    free(r);
    if (!v) {
        free(*buf);
        *buf = NULL;
        *n = 0;
    }
    return v;
}

int jk_journal_is_recover(const char *code)
{
    while (isspace((unsigned char)*code))
        code++;
    if (strncmp(code, "%recover", 8) != 0)
        return 0;
    for (code += 8; *code; code++)
        if (!isspace((unsigned char)*code))
            return 0;
    return 1;
}

void jk_journal_free(jk_journal_t *j)
{
    jk_spool_free(j->spool);
    memset(j, 0, sizeof *j);
}
