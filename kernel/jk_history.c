#include "jk_history.h"

#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "jk_spool.h"

#define SESSION_NUMBER 1

/* On disk (jk_spool): an 'I' record per input, an 'O' record per result
 * (after its input). Nothing is kept in memory per cell; a history_request
 * reads the file back (ipykernel's history is a database on disk). */
enum { INPUT = 'I', OUTPUT = 'O' };

typedef struct entry {
    int line;
    const char *code;
    const char *output; /* text/plain result, NULL if none */
} entry_t;

struct jk_history {
    jk_spool_t *spool;
};

/* The entries read back for one reply (len of them, texts in buf). */
typedef struct loaded {
    entry_t *entries;
    size_t len;
    char *buf;
} loaded_t;

jk_history_t *jk_history_new(void)
{
    jk_history_t *h = calloc(1, sizeof *h);
    if (h && !(h->spool = jk_spool_new())) {
        free(h);
        return NULL;
    }
    return h;
}

void jk_history_free(jk_history_t *h)
{
    if (!h)
        return;
    jk_spool_free(h->spool);
    free(h);
}

void jk_history_add(jk_history_t *h, int line, const char *code)
{
    jk_spool_add(h->spool, INPUT, line, code, strlen(code));
}

void jk_history_set_output(jk_history_t *h, int line, const char *text)
{
    jk_spool_add(h->spool, OUTPUT, line, text, strlen(text));
}

/* The inputs, each with the last result recorded for its line. */
static loaded_t load(const jk_history_t *h)
{
    loaded_t l = {0};
    size_t n;
    jk_spool_record_t *r = jk_spool_read(h->spool, &n, &l.buf);
    l.entries = malloc((n ? n : 1) * sizeof *l.entries);
    if (!l.entries) {
        free(r);
        free(l.buf);
        l.buf = NULL;
        return l;
    }
    for (size_t i = 0; i < n; i++) {
        if (r[i].tag == INPUT) {
            l.entries[l.len++] = (entry_t){r[i].number, r[i].text, NULL};
            continue;
        }
        for (size_t k = l.len; k-- > 0;)
            if (l.entries[k].line == r[i].number) {
                l.entries[k].output = r[i].text;
                break;
            }
    }
    free(r);
    return l;
}

static int want_output; /* set per reply: the history is used from one thread */

static json_t *item(const entry_t *e)
{
    if (want_output)
        return json_pack("[ii[ss*]]", SESSION_NUMBER, e->line, e->code, e->output);
    return json_pack("[iis]", SESSION_NUMBER, e->line, e->code);
}

static int int_field(const json_t *content, const char *key, int fallback)
{
    json_t *v = json_object_get(content, key);
    return json_is_integer(v) ? (int)json_integer_value(v) : fallback;
}

/* Appends the entries with index >= first, at most n of them (n < 0: all). */
static void add_tail(json_t *out, const loaded_t *h, int n)
{
    size_t first = n < 0 || (size_t)n >= h->len ? 0 : h->len - (size_t)n;
    for (size_t i = first; i < h->len; i++)
        json_array_append_new(out, item(&h->entries[i]));
}

static void add_range(json_t *out, const loaded_t *h, const json_t *content)
{
    int session = int_field(content, "session", 0);
    if (session != 0 && session != SESSION_NUMBER)
        return; /* only this session is kept */
    int start = int_field(content, "start", 1);
    int stop = int_field(content, "stop", 0); /* exclusive; 0 = to the end */
    for (size_t i = 0; i < h->len; i++) {
        int line = h->entries[i].line;
        if (line >= start && (stop <= 0 || line < stop))
            json_array_append_new(out, item(&h->entries[i]));
    }
}

static void add_search(json_t *out, const loaded_t *h, const json_t *content)
{
    const char *pattern = json_string_value(json_object_get(content, "pattern"));
    if (!pattern)
        pattern = "*";
    int n = int_field(content, "n", -1);
    int unique = json_is_true(json_object_get(content, "unique"));
    /* newest first while collecting, so that n keeps the latest matches */
    const entry_t **found = malloc((h->len ? h->len : 1) * sizeof *found);
    size_t count = 0;
    if (!found)
        return;
    for (size_t i = h->len; i-- > 0;) {
        if (n >= 0 && count >= (size_t)n)
            break;
        const entry_t *e = &h->entries[i];
        if (fnmatch(pattern, e->code, 0) != 0)
            continue;
        int seen = 0;
        for (size_t j = 0; unique && j < count && !seen; j++)
            seen = strcmp(found[j]->code, e->code) == 0;
        if (!seen)
            found[count++] = e;
    }
    while (count-- > 0)
        json_array_append_new(out, item(found[count]));
    free(found);
}

json_t *jk_history_reply(const jk_history_t *hist, const json_t *content)
{
    loaded_t loaded = load(hist), *h = &loaded;
    json_t *out = json_array();
    want_output = json_is_true(json_object_get(content, "output"));
    const char *type = json_string_value(json_object_get(content, "hist_access_type"));
    if (type && strcmp(type, "tail") == 0)
        add_tail(out, h, int_field(content, "n", 10));
    else if (type && strcmp(type, "range") == 0)
        add_range(out, h, content);
    else if (type && strcmp(type, "search") == 0)
        add_search(out, h, content);
    free(loaded.entries);
    free(loaded.buf);
    return json_pack("{s:s, s:o}", "status", "ok", "history", out);
}
