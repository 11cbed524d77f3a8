/* %lib and %cflags: what every later compile links and is given (the
 * state is the session's rt_options; see docs/magics.md). */
#include "rt_magic.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_options.h"

static void list_libraries(const rt_options_t *o)
{
    if (!o->lib_names.n) {
        printf("No libraries linked by %%lib (libc and libm always are).\n");
        return;
    }
    size_t w = 0;
    for (size_t i = 0; i < o->lib_names.n; i++)
        if (strlen(o->lib_names.v[i]) > w)
            w = strlen(o->lib_names.v[i]);
    for (size_t i = 0; i < o->lib_names.n; i++)
        printf("%-*s  %s\n", (int)w, o->lib_names.v[i], o->lib_paths.v[i]);
}

int rt_magic_lib(rt_session_t *s, const char *code, const rt_magic_line_t *m, int cell_no,
                 rt_error_t *err)
{
    rt_options_t *o = rt_session_options(s);
    cm_names_t names = {0};
    rt_magic_args(code, m, &names);
    if (!names.n)
        list_libraries(o);
    int rc = 0;
    for (size_t i = 0; i < names.n && rc == 0; i++) {
        char why[2048];
        if (rt_options_add_library(o, names.v[i], why, sizeof why) != 0)
            rc = rt_error_set(err, "LibraryNotFound", cell_no, m->line,
                              "%%lib: library '%s' not found: %s", names.v[i], why);
    }
    cm_names_free(&names);
    rt_session_options_changed(s);
    return rc;
}

/* Options %cflags passes on; those that take a value take it joined or
 * as the next word. This libtcc exit()s on some malformed options, so
 * nothing else reaches it. */
typedef struct opt {
    const char *prefix;
    int value;          /* 1: needs a value (joined or next word) */
} opt_t;

static const opt_t known_opts[] = {
    {"-I", 1}, {"-isystem", 1}, {"-D", 1}, {"-U", 1}, {"-std=", 0}, {"-W", 0}, {"-w", 0},
    {"-f", 0}, {"-O", 0}, {"-g", 0}, {NULL, 0},
};

int rt_magic_cflags(rt_session_t *s, const char *code, const rt_magic_line_t *m, int cell_no,
                    rt_error_t *err)
{
    rt_options_t *opts = rt_session_options(s);
    cm_names_t args = {0};
    rt_magic_args(code, m, &args);
    if (!args.n) {
        if (!opts->cflags.n)
            printf("No TCC options set by %%cflags (always on: -Wall -Wno-unused-function).\n");
        for (size_t i = 0; i < opts->cflags.n; i++)
            printf("%s%s", opts->cflags.v[i], i + 1 == opts->cflags.n ? "\n" : " ");
        return 0;
    }
    int error = 0;
    cm_names_t add = {0};
    int reset = 0;
    for (size_t i = 0; i < args.n && !error; i++) {
        const char *a = args.v[i];
        if (strcmp(a, "--reset") == 0) {
            reset = 1;
            continue;
        }
        if (strcmp(a, "-b") == 0 || strncmp(a, "-bt", 3) == 0) {
            error = rt_error_set(err, "NotSupported", cell_no, m->line,
                                "%%cflags: %s (bounds checking) is not supported: this libtcc "
                                "(0.9.27) cannot check bounds in code compiled in memory (it "
                                "reports valid accesses as out of bounds and crashes)", a);
            break;
        }
        const opt_t *o = known_opts;
        while (o->prefix && strncmp(a, o->prefix, strlen(o->prefix)) != 0)
            o++;
        if (!o->prefix || strchr(a, '"') || strchr(a, '\'')) {
            error = rt_error_set(err, "UsageError", cell_no, m->line,
                                "%%cflags: '%s' is not an option %%cflags takes (-I, -isystem, "
                                "-D, -U, -w, -W..., -f..., -O, -g, -std=; no quotes; libraries "
                                "with %%lib)", a);
            break;
        }
        cm_buf_t opt = {0};
        cm_buf_adds(&opt, a);
        if (o->value && !a[strlen(o->prefix)]) {
            if (i + 1 == args.n) {
                error = rt_error_set(err, "UsageError", cell_no, m->line,
                                    "%%cflags: %s needs a value", a);
                cm_buf_free(&opt);
                break;
            }
            if (strcmp(o->prefix, "-isystem") == 0)
                cm_buf_addc(&opt, ' ');
            cm_buf_adds(&opt, args.v[++i]);
        }
        if ((a[1] == 'D' || a[1] == 'U') &&
            !(isalpha((unsigned char)cm_buf_str(&opt)[2]) || cm_buf_str(&opt)[2] == '_'))
            error = rt_error_set(err, "UsageError", cell_no, m->line,
                                "%%cflags: '%s' does not name a macro", cm_buf_str(&opt));
        cm_names_add(&add, cm_buf_str(&opt), opt.len);
        cm_buf_free(&opt);
    }
    if (!error) {
        if (reset)
            cm_names_free(&opts->cflags);
        for (size_t i = 0; i < add.n; i++)
            rt_options_add_cflag(opts, add.v[i]);
        rt_session_options_changed(s);
    }
    cm_names_free(&add);
    cm_names_free(&args);
    return error;
}

