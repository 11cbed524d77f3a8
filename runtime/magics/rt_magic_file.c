/* Files: `%%writefile [-a] FILE` (the cell's text into a file, as Colab
 * courses write .cu files before `!nvcc`) and `%load FILE` (a file's text
 * into the cell: the set_next_input payload, which the front end uses to
 * replace the cell). Relative names are from the executor's folder (%cd). */
#include "rt_magic.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cm_buf.h"
#include "cm_file.h"

/* The file name in code[a, b): blanks trimmed, one pair of quotes taken
 * off, a leading ~/ made $HOME/. Appended to out; 0, or -1 when empty. */
static int file_name(const char *code, size_t a, size_t b, cm_buf_t *out)
{
    while (a < b && (code[a] == ' ' || code[a] == '\t'))
        a++;
    while (b > a && (code[b - 1] == ' ' || code[b - 1] == '\t'))
        b--;
    if (b - a >= 2 && (code[a] == '"' || code[a] == '\'') && code[b - 1] == code[a]) {
        a++;
        b--;
    }
    if (a == b)
        return -1;
    const char *home = getenv("HOME");
    if (b - a >= 2 && code[a] == '~' && code[a + 1] == '/' && home) {
        cm_buf_adds(out, home);
        a++;
    }
    cm_buf_add(out, code + a, b - a);
    return 0;
}

int rt_magic_writefile(rt_session_t *s, const char *code, const rt_magic_line_t *m,
                       int cell_no, rt_error_t *err)
{
    (void)s;
    size_t a = m->args, b = m->args + m->args_len;
    int append = 0;
    if (b - a >= 2 && strncmp(code + a, "-a", 2) == 0 &&
        (b - a == 2 || code[a + 2] == ' ' || code[a + 2] == '\t')) {
        append = 1;
        a += 2;
    }
    cm_buf_t path = {0};
    if (file_name(code, a, b, &path) != 0)
        return rt_error_set(err, "UsageError", cell_no, m->line,
                            "%%%%writefile needs a file name: %%%%writefile [-a] FILE");
    const char *name = cm_buf_str(&path), *body = code + m->next;
    int existed = access(name, F_OK) == 0;
    int rc = 0;
    if (append) {
        FILE *f = fopen(name, "a");
        if (!f || fputs(body, f) == EOF)
            rc = -1;
        if (f && fclose(f) != 0)
            rc = -1;
        if (rc)
            rt_error_set(err, "OSError", cell_no, m->line, "cannot append to %s: %s", name,
                         strerror(errno));
    } else {
        cm_error_t e = {0};
        rc = cm_file_write(name, body, strlen(body), 0644, &e);
        if (rc)
            rt_error_set(err, "OSError", cell_no, m->line, "cannot write %s: %s", name,
                         strerror(e.code));
    }
    if (rc == 0)
        printf("%s %s\n", append ? "Appending to" : existed ? "Overwriting" : "Writing", name);
    cm_buf_free(&path);
    return rc;
}

int rt_magic_load(rt_session_t *s, const char *code, const rt_magic_line_t *m, int cell_no,
                  rt_error_t *err)
{
    cm_buf_t path = {0};
    if (file_name(code, m->args, m->args + m->args_len, &path) != 0)
        return rt_error_set(err, "UsageError", cell_no, m->line,
                            "%%load needs a file name: %%load FILE");
    FILE *f = fopen(cm_buf_str(&path), "r");
    if (!f) {
        rt_error_set(err, "OSError", cell_no, m->line, "cannot read %s: %s", cm_buf_str(&path),
                     strerror(errno));
        cm_buf_free(&path);
        return -1;
    }
    cm_buf_t text = {0};
    cm_buf_addf(&text, "// %%load %.*s\n", (int)m->args_len, code + m->args);
    cm_buf_add_stream(&text, f);
    fclose(f);
    json_t *item = json_pack("{s:s, s:s, s:b}", "source", "set_next_input", "text",
                             cm_buf_str(&text), "replace", 1);
    cm_buf_free(&text);
    cm_buf_free(&path);
    if (!item)
        return rt_error_set(err, "UnicodeDecodeError", cell_no, m->line,
                            "%%load: the file is not UTF-8 text");
    rt_session_add_payload(s, item);
    return 0;
}
