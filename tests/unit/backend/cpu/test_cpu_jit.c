/* test_cpu_jit: compiling with the system compiler, the one compile cache
 * (its folder, shared with NVRTC's images), errors; cm_file's writes
 * through a rename. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "cm_cache.h"
#include "cm_file.h"
#include "cpu_jit.h"

static void test_file(const char *dir)
{
    char path[512];
    snprintf(path, sizeof path, "%s/a/b/c.txt", dir);
    char sub[512];
    snprintf(sub, sizeof sub, "%s/a/b", dir);
    cm_error_t err = {0};
    CHECK(cm_file_mkdirs(sub, &err) == 0);
    CHECK(cm_file_mkdirs(sub, &err) == 0); /* an existing folder is fine */
    const void *parts[2] = {"hello ", "world"};
    size_t lens[2] = {6, 5};
    CHECK(cm_file_writev(path, parts, lens, 2, 0644, &err) == 0);
    FILE *f = fopen(path, "r");
    char buf[64] = {0};
    CHECK(f && fread(buf, 1, sizeof buf - 1, f) == 11);
    if (f)
        fclose(f);
    CHECK_STR(buf, "hello world");
    /* no temporary left beside it */
    char cmd[700];
    snprintf(cmd, sizeof cmd, "test $(ls '%s' | wc -l) -eq 1", sub);
    CHECK(system(cmd) == 0);
    /* a folder that cannot hold it: an error with the path, nothing left */
    char bad[512];
    snprintf(bad, sizeof bad, "%s/missing/x.txt", dir);
    cm_error_clear(&err);
    CHECK(cm_file_write(bad, "x", 1, 0644, &err) == -1);
    CHECK(strstr(err.text, "missing/x.txt") != NULL);
}

/* The shared objects in the compile cache's folder: <64 hex>.so. */
static int objects(void)
{
    int n = 0;
    DIR *d = opendir(cm_cache_dir());
    for (struct dirent *e; d && (e = readdir(d));)
        n += strlen(e->d_name) == 64 + 3 && strcmp(e->d_name + 64, ".so") == 0;
    if (d)
        closedir(d);
    return n;
}

static void test_jit(const char *dir)
{
    /* the one folder of the compile cache: $XDG_CACHE_HOME/gpuc */
    char want[512];
    snprintf(want, sizeof want, "%s/gpuc", dir);
    CHECK(cm_cache_dir() && strcmp(cm_cache_dir(), want) == 0);
    int before = objects();
    cpu_jit_result_t r;
    cm_error_t err = {0};
    const char *src = "int twice(int x) { return 2 * x; }\n";
    CHECK(cpu_jit_load(CPU_JIT_C, src, "-O2", &r, &err) == 0);
    CHECK_STR(r.cache, "miss");
    CHECK(objects() == before + 1); /* kept where NVRTC's images are kept */
    int (*twice)(int) = (int (*)(int))cpu_jit_symbol(r.handle, "twice", &err);
    CHECK(twice && twice(21) == 42);
    void *first = r.handle;
    CHECK(cpu_jit_load(CPU_JIT_C, src, "-O2", &r, &err) == 0);
    CHECK_STR(r.cache, "memory hit");
    CHECK(r.handle == first);
    cpu_jit_reset_memory();
    CHECK(cpu_jit_load(CPU_JIT_C, src, "-O2", &r, &err) == 0);
    CHECK_STR(r.cache, "disk hit");
    CHECK(cpu_jit_symbol(r.handle, "nothing", &err) == NULL && err.code == CPU_E_JIT_LOAD);

    /* C++ */
    cm_error_clear(&err);
    CHECK(cpu_jit_load(CPU_JIT_CXX, "template <class T> T sq(T x) { return x * x; }\n"
                                  "extern \"C\" double sqd(double x) { return sq(x); }\n",
                      NULL, &r, &err) == 0);
    double (*sqd)(double) = (double (*)(double))cpu_jit_symbol(r.handle, "sqd", &err);
    CHECK(sqd && sqd(3.0) == 9.0);

    /* a compile error: the first error line, the whole log */
    cm_error_clear(&err);
    CHECK(cpu_jit_load(CPU_JIT_C, "int f(void) { return y; }\n", NULL, &r, &err) == -1);
    CHECK(err.code == CPU_E_JIT_COMPILE);
    CHECK(strstr(err.text, "error") && strstr(err.text, "'y' undeclared"));
    CHECK(r.log && strstr(r.log, "'y' undeclared"));
    free(r.log);

}

/* No compiler: a clear error. The compiler is looked up once per
 * process, so this runs in a child before anything else looks. */
static void test_no_compiler(void)
{
    pid_t pid = fork();
    if (pid == 0) {
        setenv("CC", "/nonexistent/cc", 1);
        cm_error_t e = {0};
        cpu_jit_result_t r;
        int rc = cpu_jit_load(CPU_JIT_C, "int x;\n", NULL, &r, &e);
        _exit(rc == -1 && e.code == CPU_E_JIT_COMPILER && strstr(e.text, "install gcc") ? 0 : 1);
    }
    int st = 0;
    CHECK(pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

int main(void)
{
    char dir[] = "/tmp/test_cpu_jit_XXXXXX";
    if (!mkdtemp(dir))
        return 1;
    setenv("XDG_CACHE_HOME", dir, 1);
    test_no_compiler();
    test_file(dir);
    test_jit(dir);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        return 1;
    return check_report("test_cpu_jit");
}
