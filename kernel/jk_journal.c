/* jk_journal: the cells %recover replays (see jk_journal.h). */
#include "jk_journal.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

enum { CELL = 'J' };

void jk_journal_add(jk_journal_t *j, int cell, const char *code)
{
    if (!j->live)
        j->live = jk_spool_new();
    if (j->live && jk_spool_add(j->live, CELL, cell, code, strlen(code)) == 0)
        j->nlive++;
}

void jk_journal_replaced(jk_journal_t *j)
{
    if (!j->nlive)
        return;
    size_t nold = 0, nlive = 0;
    char *old_buf = NULL, *live_buf = NULL;
    jk_spool_record_t *old = j->recover ? jk_spool_read(j->recover, &nold, &old_buf) : NULL;
    jk_spool_record_t *live = jk_spool_read(j->live, &nlive, &live_buf);
    jk_spool_t *all = jk_spool_new();
    size_t n = 0;
    /* cells recovered into the dead executor are in its live record too:
     * what was recoverable is replaced, not added to */
    for (size_t i = 0; all && i < nold; i++) {
        int replayed = 0;
        for (size_t k = 0; k < nlive && !replayed; k++)
            replayed = live[k].number == old[i].number;
        if (!replayed && jk_spool_add(all, CELL, old[i].number, old[i].text, old[i].len) == 0)
            n++;
    }
    for (size_t k = 0; all && k < nlive; k++)
        if (jk_spool_add(all, CELL, live[k].number, live[k].text, live[k].len) == 0)
            n++;
    free(old);
    free(old_buf);
    free(live);
    free(live_buf);
    jk_spool_free(j->recover);
    jk_spool_free(j->live);
    j->recover = all;
    j->nrecover = all ? n : 0;
    j->live = NULL;
    j->nlive = 0;
}

jk_journal_entry_t *jk_journal_take_recover(jk_journal_t *j, size_t *n, char **buf)
{
    *n = 0;
    *buf = NULL;
    jk_spool_record_t *r = j->recover ? jk_spool_read(j->recover, n, buf) : NULL;
    jk_journal_entry_t *v = r ? malloc(*n * sizeof *v) : NULL;
    for (size_t i = 0; v && i < *n; i++)
        v[i] = (jk_journal_entry_t){r[i].number, r[i].text};
    if (!v) {
        free(*buf);
        *buf = NULL;
        *n = 0;
    }
    free(r);
    jk_spool_free(j->recover);
    j->recover = NULL;
    j->nrecover = 0;
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
    jk_spool_free(j->live);
    jk_spool_free(j->recover);
    memset(j, 0, sizeof *j);
}
