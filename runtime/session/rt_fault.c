/* rt_fault: describes a signal that ended a cell as an error reply, naming
 * the cell function it happened in. */
#include <dlfcn.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_session_internal.h"
#include "rt_limits.h"
#include "rt_tcc.h"

#define MAX_FUNCTION_SIZE (1u << 20) /* beyond this from a start, not that function */
#define NULL_PAGES (64u << 10)       /* a fault below: a null pointer used */

/* The cell function containing addr, or NULL. Borrowed. */
static const rt_code_t *find_code(const rt_session_t *s, void *addr)
{
    Dl_info info;
    if (!addr || (dladdr(addr, &info) && info.dli_fname && info.dli_fbase))
        return NULL; /* inside a shared object, not cell code */
    const rt_code_t *best = NULL;
    for (size_t i = 0; i < s->ncode; i++) {
        uintptr_t a = (uintptr_t)s->code[i].addr;
        if (a <= (uintptr_t)addr && (!best || a > (uintptr_t)best->addr))
            best = &s->code[i];
    }
    if (best && (uintptr_t)addr - (uintptr_t)best->addr > MAX_FUNCTION_SIZE)
        return NULL;
    return best;
}

/* The library function that the cell code returning to ret called: the
 * call instruction before ret goes to a PLT stub in the arena, whose jump
 * reads the function's address from the GOT; that address is named by the
 * symbols the cell was linked against. NULL when that is not the shape. */
static const char *called_library(const rt_session_t *s, const void *ret)
{
    const unsigned char *r = ret;
    if (!rt_tcc_owns_code(r - 5) || r[-5] != 0xE8)
        return NULL;
    int32_t rel;
    memcpy(&rel, r - 4, 4);
    const unsigned char *stub = r + rel;
    if (!rt_tcc_owns_code(stub) || !rt_tcc_owns_code(stub + 5) || stub[0] != 0xFF ||
        stub[1] != 0x25)
        return NULL;
    memcpy(&rel, stub + 2, 4);
    const unsigned char *slot = stub + 6 + rel;
    if (!rt_tcc_owns_code(slot))
        return NULL;
    void *target;
    memcpy(&target, slot, sizeof target);
    for (size_t i = 0; i < s->nlibs; i++)
        if (s->libs[i].addr == target)
            return s->libs[i].name;
    return NULL;
}

/* A cell's top-level code runs only as part of that cell, or as the same
 * code run again by a later cell (a re-run reuses it): either way it is
 * the running cell's. ip is where in f: the line is said when known (a
 * return address is looked up one byte back, in its call). */
static void describe_code(const rt_session_t *s, char *out, size_t size, const rt_code_t *f,
                          const void *ip, int running_cell)
{
    int line = 0;
    int line_cell = rt_session_line_of(s, ip, &line);
    const char *name = rt_session_code_name(s, f);
    if (!name) {
        if (line_cell)
            snprintf(out, size, "in the top-level code of cell %d, line %d", running_cell, line);
        else
            snprintf(out, size, "in the top-level code of cell %d", running_cell);
    } else if (line_cell) {
        snprintf(out, size, "in function %s() (cell %d, line %d)", name, line_cell, line);
    } else {
        snprintf(out, size, "in function %s() (cell %d)", name, f->cell);
    }
}

#define MAX_TRACE 8

/* The call instruction a return address ret follows (looked up one byte
 * back), or NULL for none. */
static const void *call_site(const void *ret)
{
    return ret ? (const char *)ret - 1 : NULL;
}

/* The traceback: each frame in cell code from the innermost out, up to the
 * cell's top-level code (a run of the same call, as in a recursion, once
 * with its count); only when there is more than the one frame that the
 * message names. */
static void add_trace(const rt_session_t *s, int cell, const rt_fault_t *f, rt_error_t *err)
{
    char where[MAX_TRACE][300];
    int repeats[MAX_TRACE], n = 0, frames = 0;
    for (int i = -1; i < f->nframes; i++) {
        /* a return address is looked up in its call, one byte back; so is
         * an interrupted wait's ip, where it returns to */
        const void *ip = i >= 0 ? call_site(f->frames[i]) : f->call ? call_site(f->ip) : f->ip;
        if (!ip) /* the end of a frame chain, or a jump to address 0 */
            continue;
        const rt_code_t *code = find_code(s, (void *)ip);
        if (!code)
            continue;
        char w[300];
        describe_code(s, w, sizeof w, code, ip, cell);
        frames++;
        if (n && strcmp(w, where[n - 1]) == 0) {
            repeats[n - 1]++;
        } else if (n < MAX_TRACE) {
            snprintf(where[n], sizeof where[n], "%s", w);
            repeats[n++] = 0;
        }
        if (code->name == RT_CODE_CELL)
            break; /* the cell's own code called everything above */
    }
    if (frames < 2)
        return;
    rt_error_add_line(err, "Traceback (innermost call first):");
    for (int i = 0; i < n; i++) {
        rt_error_add_line(err, "  %s%s", i ? "called from " : "", i ? where[i] + 3 : where[i]);
        if (repeats[i])
            rt_error_add_line(err, "  (the same call %d more time%s%s)", repeats[i],
                              repeats[i] == 1 ? "" : "s",
                              f->nframes >= RT_PROTECT_FRAMES ? " at least" : "");
    }
}

static const char *ename_of(int sig)
{
    switch (sig) {
    case SIGSEGV: return "SegmentationFault";
    case SIGBUS: return "BusError";
    case SIGFPE: return "FloatingPointError";
    case SIGILL: return "IllegalInstruction";
    case SIGABRT: return "Abort";
    case SIGINT: return "Interrupted";
    default: return "Signal";
    }
}

static void what(char *out, size_t size, const rt_fault_t *f)
{
    switch (f->signo) {
    case SIGSEGV:
        if (f->stack_overflow)
            snprintf(out, size, "stack overflow: too deep recursion?");
        else
            snprintf(out, size, "invalid memory access at 0x%lx%s", (unsigned long)(uintptr_t)f->addr,
                     rt_limits()->memory && (uintptr_t)f->addr < NULL_PAGES
                         ? " (a null pointer: under this kernel's memory limit, "
                           "see %limits, an allocation past it returns NULL)"
                         : "");
        return;
    case SIGBUS:
        snprintf(out, size, "bus error at 0x%lx", (unsigned long)(uintptr_t)f->addr);
        return;
    case SIGFPE:
        snprintf(out, size, "%s",
                 f->code == FPE_INTDIV ? "integer division by zero"
                 : f->code == FPE_INTOVF ? "integer overflow"
                 : "arithmetic exception");
        return;
    case SIGILL: snprintf(out, size, "illegal instruction at %p", f->ip); return;
    case SIGABRT: snprintf(out, size, "abort() was called"); return;
    default: out[0] = '\0'; return;
    }
}

/* The name a user knows for a function of compiled code that is not
 * TCC's (a %%cc or C++ cell's, a library's): a C++ cell's entry is its
 * top-level code, a C++ name is demangled (when libstdc++ is loaded, as
 * it is once a C++ cell ran). Writes into out. */
static const char *native_name(const char *sym, int cell, char *out, size_t size)
{
    if (!strcmp(sym, "__gpuc_cpp_run")) {
        snprintf(out, size, "the C++ top-level code of cell %d", cell);
        return out;
    }
    typedef char *(*demangle_fn)(const char *, char *, size_t *, int *);
    demangle_fn demangle = NULL;
    void *cxx = strncmp(sym, "_Z", 2) ? NULL : dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_NOLOAD);
    if (cxx) {
        *(void **)&demangle = dlsym(cxx, "__cxa_demangle");
        dlclose(cxx); /* NOLOAD took a reference: the library stays loaded */
    }
    int status = -1;
    char *plain = demangle ? demangle(sym, NULL, NULL, &status) : NULL;
    snprintf(out, size, "%s%s", status == 0 && plain ? plain : sym,
             status == 0 && plain && strchr(plain, '(') ? "" : "()");
    free(plain);
    return out;
}

void rt_session_fault_error(rt_session_t *s, int cell, const rt_fault_t *f, rt_error_t *err)
{
    char where[300] = "";
    const rt_code_t *code = find_code(s, f->ip);
    if (code && f->call) { /* an interrupted wait: ip is where it returns to */
        char caller[200];
        describe_code(s, caller, sizeof caller, code, (const char *)f->ip - 1, cell);
        snprintf(where, sizeof where, "in %s(), called %s", f->call, caller);
    } else if (code) {
        describe_code(s, where, sizeof where, code, f->ip, cell);
    } else {
        Dl_info info;
        const char *lib = NULL;
        if (f->ip && dladdr(f->ip, &info) && info.dli_sname)
            lib = info.dli_sname;
        const void *at = NULL;
        for (int i = 0; i < f->nframes && !code; i++) {
            code = find_code(s, f->frames[i]);
            at = call_site(f->frames[i]);
            if (code && !lib)
                lib = called_library(s, f->frames[i]);
        }
        char caller[200] = "", name[160] = "";
        if (code)
            describe_code(s, caller, sizeof caller, code, at, cell);
        if (lib)
            native_name(lib, cell, name, sizeof name);
        if (lib && code)
            snprintf(where, sizeof where, "in %s, called %s", name, caller);
        else if (lib)
            snprintf(where, sizeof where, "in %s", name);
        else if (code)
            snprintf(where, sizeof where, "%s", caller);
    }
    char evalue[CM_ERROR_TEXT];
    char w[200];
    what(w, sizeof w, f);
    if (f->call && !strcmp(f->call, "exit")) {
        const char *at = where + (strncmp(where, "in exit(), ", 11) ? 0 : 11);
        snprintf(evalue, sizeof evalue,
                 "exit(%d)%s%s: cell %d stopped there; the session's variables are kept",
                 f->exit_status, at[0] ? " " : "", at, cell);
        rt_error_set(err, "SystemExit", 0, 0, "%s", evalue);
        rt_error_add_line(err, "SystemExit: %s", evalue);
        return;
    }
    if (f->signo == SIGINT)
        snprintf(evalue, sizeof evalue,
                 "cell %d was interrupted%s%s; the session's variables are kept", cell,
                 where[0] ? " " : "", where);
    else
        snprintf(evalue, sizeof evalue,
                 "cell %d crashed with %s (%s)%s%s; the session's variables are kept", cell,
                 rt_protect_signal_name(f->signo), w, where[0] ? " " : "", where);
    rt_error_set(err, ename_of(f->signo), 0, 0, "%s", evalue);
    rt_error_add_line(err, "%s: %s", ename_of(f->signo), evalue);
    add_trace(s, cell, f, err);
}
