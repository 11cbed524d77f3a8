/* jk_journal: the cells %recover replays (see jk_journal.h). */
#include "jk_journal.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "cm_buf.h"
#include "cm_vec.h"

void jk_journal_add(jk_journal_t *j, int cell, const char *code)
{
    CM_VEC_GROW(j->live, j->nlive, j->caplive);
    j->live[j->nlive++] = (jk_journal_entry_t){cell, cm_strndup(code, strlen(code))};
}

void jk_journal_replaced(jk_journal_t *j)
{
    if (!j->nlive)
        return;
    /* cells recovered into the dead executor are in its live record too:
     * what was recoverable is replaced, not added to */
    size_t keep = 0;
    for (size_t i = 0; i < j->nrecover; i++) {
        int replayed = 0;
        for (size_t k = 0; k < j->nlive && !replayed; k++)
            replayed = j->live[k].cell == j->recover[i].cell;
        if (replayed)
            free(j->recover[i].code);
        else
            j->recover[keep++] = j->recover[i];
    }
    jk_journal_entry_t *all = realloc(j->recover, (keep + j->nlive) * sizeof *all);
    if (!all)
        abort();
    memcpy(all + keep, j->live, j->nlive * sizeof *all);
    j->recover = all;
    j->nrecover = keep + j->nlive;
    free(j->live);
    j->live = NULL;
    j->nlive = j->caplive = 0;
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

static void free_entries(jk_journal_entry_t *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(v[i].code);
    free(v);
}

void jk_journal_free(jk_journal_t *j)
{
    free_entries(j->live, j->nlive);
    free_entries(j->recover, j->nrecover);
    memset(j, 0, sizeof *j);
}
