/* gpuc: a Jupyter kernel for C and CUDA. One binary, several commands. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuc_config.h"
#include "jk_commands.h"
#include "rt_executor.h"
#include "rt_header.h"

typedef struct command {
    const char *name;
    int (*main)(int argc, char **argv);
    const char *help;
} command_t;

/* The kernelspec and, beside it, gpuc.h (made by the runtime). */
static int install_main(int argc, char **argv)
{
    return jk_install_main(argc, argv, rt_gpuc_h);
}

static const command_t commands[] = {
    {"kernel", jk_kernel_main, "kernel -f CONNECTION_FILE   serve a Jupyter session"},
    {"install", install_main, "install [--user | --sys-prefix | --prefix DIR]   install the kernelspec (and gpuc.h beside it)"},
    {"run", jk_notebook_main, "run NOTEBOOK.ipynb [-o OUT.ipynb | --inplace] [-p NAME VALUE]...   execute a notebook headless"},
    {"executor", rt_executor_main, NULL}, /* internal: started by the kernel */
};

static int usage(FILE *out)
{
    fprintf(out, "gpuc %s — a Jupyter kernel for C and CUDA\n\nusage:\n", GPUC_VERSION);
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (commands[i].help)
            fprintf(out, "  gpuc %s\n", commands[i].help);
    fprintf(out, "  gpuc --version\n");
    fprintf(out, "  gpuc --include-dir   the folder of gpuc.h: gcc -I$(gpuc --include-dir) x.c\n");
    return out == stderr ? 2 : 0;
}

/* Non-zero when dir/gpuc.h holds this binary's gpuc.h, byte for byte. */
static int holds_gpuc_h(const char *dir)
{
    char path[PATH_MAX];
    if (snprintf(path, sizeof path, "%s/gpuc.h", dir) >= (int)sizeof path)
        return 0;
    FILE *f = fopen(path, "rb");
    if (!f)
        return 0;
    size_t len = strlen(rt_gpuc_h), n = 0;
    char buf[4096];
    int same = 1;
    for (size_t got; same && (got = fread(buf, 1, sizeof buf, f)) > 0; n += got)
        same = n + got <= len && memcmp(buf, rt_gpuc_h + n, got) == 0;
    fclose(f);
    return same && n == len;
}

/* gpuc --include-dir: the folder of this binary's gpuc.h, the one beside
 * it in a bundle (BUNDLE/include beside BUNDLE/bin/gpuc), else the build
 * tree's (BUILD/include); one that holds another gpuc's is passed over. */
static int include_dir_main(void)
{
    char exe[PATH_MAX], dir[PATH_MAX + 16], found[PATH_MAX];
    if (jk_self_exe(exe, sizeof exe) == 0 && strrchr(exe, '/')) {
        *strrchr(exe, '/') = '\0';
        snprintf(dir, sizeof dir, "%s/../include", exe);
        if (holds_gpuc_h(dir) && realpath(dir, found)) {
            printf("%s\n", found);
            return 0;
        }
    }
    if (holds_gpuc_h(GPUC_BUILD_INCLUDE_DIR)) {
        printf("%s\n", GPUC_BUILD_INCLUDE_DIR);
        return 0;
    }
    fprintf(stderr, "gpuc: no gpuc.h of this gpuc beside it (../include) or in the build "
                    "folder (%s); `gpuc install` writes one beside kernel.json\n",
            GPUC_BUILD_INCLUDE_DIR);
    return 1;
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return usage(stderr);
    if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "-V") == 0) {
        printf("gpuc %s\n", GPUC_VERSION);
        return 0;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)
        return usage(stdout);
    if (strcmp(argv[1], "--include-dir") == 0)
        return include_dir_main();
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (strcmp(argv[1], commands[i].name) == 0)
            return commands[i].main(argc - 1, argv + 1);
    fprintf(stderr, "gpuc: unknown command '%s'\n", argv[1]);
    return usage(stderr);
}
