/* jk_install: `gpuc install [--user | --sys-prefix | --prefix DIR]`.
 *
 * Writes the kernelspec directory (kernel.json and the logos) in the layout
 * of `jupyter kernelspec install`: DATA/kernels/gpuc, where DATA is
 *   --user        $JUPYTER_DATA_DIR, else $XDG_DATA_HOME/jupyter, else
 *                 ~/.local/share/jupyter (the default);
 *   --sys-prefix  $VIRTUAL_ENV or $CONDA_PREFIX, then share/jupyter;
 *   --prefix DIR  DIR/share/jupyter.
 * kernel.json names this binary by its absolute path, so Jupyter starts the
 * very gpuc that was installed. Beside it goes gpuc.h, the header every
 * host cell is compiled after (its text comes from the runtime, through
 * src/main.c), so a .c file outside the notebook can include the same
 * declarations: gcc -I DATA/kernels/gpuc. No Python or Jupyter is needed. */
#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cm_error.h"
#include "jk_commands.h"
#include "jk_logos.h"

#define KERNEL_NAME "gpuc"
#define DISPLAY_NAME "C + CUDA (gpuc)"

typedef enum { WHERE_USER, WHERE_SYS_PREFIX, WHERE_PREFIX } where_t;

static int usage(FILE *out)
{
    fprintf(out,
            "usage: gpuc install [--user | --sys-prefix | --prefix DIR]\n"
            "  --user        into the user's Jupyter data dir (default):\n"
            "                $JUPYTER_DATA_DIR, $XDG_DATA_HOME/jupyter or ~/.local/share/jupyter\n"
            "  --sys-prefix  into the active environment: $VIRTUAL_ENV or $CONDA_PREFIX\n"
            "  --prefix DIR  into DIR/share/jupyter/kernels/gpuc\n");
    return out == stderr ? 2 : 0;
}

static const char *home_dir(void)
{
    const char *home = getenv("HOME");
    if (home && *home)
        return home;
    struct passwd *pw = getpwuid(getuid());
    return pw && pw->pw_dir && *pw->pw_dir ? pw->pw_dir : NULL;
}

/* The Jupyter data directory for `where` into buf (no trailing "kernels"). */
static int data_dir(where_t where, const char *prefix, char *buf, size_t size, cm_error_t *err)
{
    const char *env;
    int n;
    switch (where) {
    case WHERE_USER:
        if ((env = getenv("JUPYTER_DATA_DIR")) && *env) {
            n = snprintf(buf, size, "%s", env);
        } else if ((env = getenv("XDG_DATA_HOME")) && *env) {
            n = snprintf(buf, size, "%s/jupyter", env);
        } else if ((env = home_dir())) {
            n = snprintf(buf, size, "%s/.local/share/jupyter", env);
        } else {
            CM_ERROR(err, 1, "cannot find the home directory: set HOME or JUPYTER_DATA_DIR, "
                             "or use --prefix DIR");
            return -1;
        }
        break;
    case WHERE_SYS_PREFIX:
        if (!((env = getenv("VIRTUAL_ENV")) && *env) && !((env = getenv("CONDA_PREFIX")) && *env)) {
            CM_ERROR(err, 1, "--sys-prefix needs an active environment (VIRTUAL_ENV or "
                             "CONDA_PREFIX is not set); use --user or --prefix DIR");
            return -1;
        }
        n = snprintf(buf, size, "%s/share/jupyter", env);
        break;
    default:
        n = snprintf(buf, size, "%s/share/jupyter", prefix);
        break;
    }
    if (n < 0 || (size_t)n >= size) {
        CM_ERROR(err, 1, "the install path is too long");
        return -1;
    }
    return 0;
}

/* mkdir -p path (mode 0755). */
static int make_dirs(const char *path, cm_error_t *err)
{
    char tmp[PATH_MAX];
    if (snprintf(tmp, sizeof tmp, "%s", path) >= (int)sizeof tmp) {
        CM_ERROR(err, 1, "the install path is too long");
        return -1;
    }
    for (char *p = tmp + 1;; p++) {
        if (*p != '/' && *p != '\0')
            continue;
        char c = *p;
        *p = '\0';
        if (mkdir(tmp, 0755) != 0 && errno != EEXIST) {
            CM_ERROR(err, 1, "cannot create %s: %s", tmp, strerror(errno));
            return -1;
        }
        struct stat st;
        if (stat(tmp, &st) != 0 || !S_ISDIR(st.st_mode)) {
            CM_ERROR(err, 1, "cannot create %s: it exists and is not a directory", tmp);
            return -1;
        }
        *p = c;
        if (c == '\0')
            break;
    }
    return 0;
}

static int write_file(const char *dir, const char *name, const void *bytes, size_t size,
                      cm_error_t *err)
{
    char path[PATH_MAX];
    if (snprintf(path, sizeof path, "%s/%s", dir, name) >= (int)sizeof path) {
        CM_ERROR(err, 1, "the install path is too long");
        return -1;
    }
    FILE *f = fopen(path, "wb");
    if (!f) {
        CM_ERROR(err, 1, "cannot write %s: %s", path, strerror(errno));
        return -1;
    }
    size_t written = fwrite(bytes, 1, size, f);
    int saved = errno;
    if (fclose(f) != 0 || written != size) {
        CM_ERROR(err, 1, "cannot write %s: %s", path, strerror(written != size ? saved : errno));
        return -1;
    }
    return 0;
}

/* kernel.json as a new reference, or NULL. */
static json_t *kernel_json(const char *exe)
{
    return json_pack("{s:[s,s,s,s], s:s, s:s, s:s, s:{s:b}}",
                     "argv", exe, "kernel", "-f", "{connection_file}",
                     "display_name", DISPLAY_NAME,
                     "language", "c",
                     "interrupt_mode", "signal",
                     "metadata", "debugger", 0);
}

static int install(const char *data, const char *exe, const char *gpuc_h, char *dir,
                   size_t dir_size, cm_error_t *err)
{
    if (snprintf(dir, dir_size, "%s/kernels/" KERNEL_NAME, data) >= (int)dir_size) {
        CM_ERROR(err, 1, "the install path is too long");
        return -1;
    }
    if (make_dirs(dir, err) != 0)
        return -1;

    json_t *spec = kernel_json(exe);
    char *text = spec ? json_dumps(spec, JSON_INDENT(1) | JSON_ENSURE_ASCII) : NULL;
    json_decref(spec);
    if (!text) {
        CM_ERROR(err, 1, "cannot build kernel.json (out of memory?)");
        return -1;
    }
    size_t len = strlen(text);
    char *with_newline = realloc(text, len + 2);
    if (!with_newline) {
        free(text);
        CM_ERROR(err, 1, "out of memory");
        return -1;
    }
    memcpy(with_newline + len, "\n", 2);
    int rc = write_file(dir, "kernel.json", with_newline, len + 1, err);
    free(with_newline);
    for (size_t i = 0; rc == 0 && i < jk_logo_count; i++)
        rc = write_file(dir, jk_logos[i].name, jk_logos[i].bytes, jk_logos[i].size, err);
    if (rc == 0)
        rc = write_file(dir, "gpuc.h", gpuc_h, strlen(gpuc_h), err);
    return rc;
}

int jk_install_main(int argc, char **argv, const char *gpuc_h)
{
    where_t where = WHERE_USER;
    const char *prefix = NULL;
    int chosen = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        where_t w;
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0)
            return usage(stdout);
        if (strcmp(a, "--user") == 0) {
            w = WHERE_USER;
        } else if (strcmp(a, "--sys-prefix") == 0) {
            w = WHERE_SYS_PREFIX;
        } else if (strcmp(a, "--prefix") == 0 || strncmp(a, "--prefix=", 9) == 0) {
            w = WHERE_PREFIX;
            if (a[8] == '=')
                prefix = a + 9;
            else if (i + 1 < argc)
                prefix = argv[++i];
            else
                prefix = NULL;
            if (!prefix || !*prefix) {
                fprintf(stderr, "gpuc install: --prefix needs a directory\n");
                return usage(stderr);
            }
        } else {
            fprintf(stderr, "gpuc install: unknown argument '%s'\n", a);
            return usage(stderr);
        }
        if (chosen && w != where) {
            fprintf(stderr, "gpuc install: give only one of --user, --sys-prefix, --prefix\n");
            return usage(stderr);
        }
        where = w;
        chosen = 1;
    }

    char exe[PATH_MAX];
    if (jk_self_exe(exe, sizeof exe) != 0) {
        fprintf(stderr, "gpuc install: cannot find this program's path (/proc/self/exe)\n");
        return 1;
    }

    cm_error_t err = {0};
    char data[PATH_MAX], dir[PATH_MAX];
    if (data_dir(where, prefix, data, sizeof data, &err) != 0 ||
        install(data, exe, gpuc_h, dir, sizeof dir, &err) != 0) {
        fprintf(stderr, "gpuc install: %s\n", err.text);
        return 1;
    }
    char shown[PATH_MAX];
    if (!realpath(dir, shown))
        snprintf(shown, sizeof shown, "%s", dir);
    printf("Installed kernelspec gpuc in %s\n", shown);
    printf("gpuc.h for programs outside notebooks: %s/gpuc.h (gcc -I%s)\n", shown, shown);
    return 0;
}
