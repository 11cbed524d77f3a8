/* rt_run: running a segment of a cell in the session — compiled (or a
 * re-run of unchanged code), then run inside the protected boundary, its
 * result kept — and gpuc's own compiles against the session
 * (rt_session_compile_aux). See rt_session.h. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_display.h"
#include "rt_gpu_host.h"
#include "rt_header.h"
#include "rt_result.h"
#include "rt_segment.h"
#include "rt_session_internal.h"

/* ---- running -------------------------------------------------------- */

typedef struct run {
    void (*cell)(void);
    int (*main)(int, char **);
    int main_rc;
} run_t;

static void run_cell(void *arg)
{
    run_t *r = arg;
    r->cell();
    if (r->main) {
        static char name[] = "cell";
        char *argv[] = {name, NULL};
        r->main_rc = r->main(1, argv);
    }
}

/* ---- re-runs ---------------------------------------------------------- */

/* A cell of statements only (it declares nothing) compiles to the same
 * code as long as what it compiles against is unchanged: running it again
 * reuses that code. Left out: cells whose code would differ on a re-run or
 * that name their cell in messages (static locals, __TIME__ and friends,
 * launches). */
static int rerunnable(const char *code, const rt_plan_t *plan)
{
    static const char *const words[] = {"static", "__TIME__", "__DATE__", "__COUNTER__",
                                        "<<<", NULL};
    if (plan->nentries || plan->keys.n || plan->vars.n || plan->funcs.n || plan->types.n ||
        plan->has_main)
        return 0;
    for (int i = 0; words[i]; i++)
        if (strstr(code, words[i]))
            return 0;
    return 1;
}

/* A cell whose code may be given back once it has run, as far as its text
 * tells (rt_tcc_code_of checks the compilation): no main, no assembly and
 * no sections of its own (code placed where the layout does not say). */
static int run_once(const char *code, const rt_plan_t *plan)
{
    return !plan->has_main && !strstr(code, "asm") && !strstr(code, "section");
}

static void (*find_rerun(const rt_session_t *s, const char *code))(void)
{
    /* the headers it was compiled against must be unchanged on disk too
     * (the shaker watches them; without one, no re-runs) */
    if (!s->shake || rt_shake_stale(s->shake))
        return NULL;
    for (size_t i = 0; i < sizeof s->reruns / sizeof s->reruns[0]; i++) {
        const struct rt_rerun *r = &s->reruns[i];
        if (r->code && r->generation == s->generation && strcmp(r->code, code) == 0)
            return r->cell;
    }
    return NULL;
}

/* Gives a cell's code back once nothing can run it (see run_code). */
static void release_code(rt_session_t *s, const rt_tcc_code_t *once)
{
    rt_session_forget_code(s, once);
    rt_tcc_release_code(once);
}

/* Keeps cell's code for re-runs; its slot's earlier cell is given back. */
static void keep_rerun(rt_session_t *s, const char *code, void (*cell)(void),
                       const rt_tcc_code_t *once)
{
    struct rt_rerun *r = &s->reruns[s->next_rerun];
    s->next_rerun = (s->next_rerun + 1) % (int)(sizeof s->reruns / sizeof s->reruns[0]);
    if (r->once.n)
        release_code(s, &r->once);
    free(r->code);
    r->code = cm_strndup(code, strlen(code));
    r->generation = s->generation;
    r->cell = cell;
    r->once = *once;
}

/* The error of a protected run that ended with sig: a raised error (a
 * failed launch), exit(n), a fault or an interrupt (with what a
 * still-running kernel means). Returns -1. */
static int run_failed(rt_session_t *s, int sig, const rt_fault_t *fault, int cell,
                      rt_error_t *err)
{
    if (sig == RT_PROTECT_EXITED || sig == RT_PROTECT_RAISED) {
        if (sig == RT_PROTECT_EXITED) {
            rt_session_fault_error(s, cell, fault, err);
        } else { /* a failed launch, say */
            const char *ename, *evalue;
            rt_protect_raised(&ename, &evalue);
            rt_error_set(err, ename, 0, 0, "%s", evalue);
        }
        /* what it launched before is done or failed too: a program that
         * exits on a kernel's failure (a CUDA_CHECK macro) adds its report */
        rt_error_t launched = {0};
        if (rt_gpu_after_cell(cell, &launched) != 0 && sig == RT_PROTECT_EXITED)
            rt_error_add_line(err, "a kernel had failed before it exited: %s", launched.message);
        rt_error_free(&launched);
        return -1;
    }
    rt_session_fault_error(s, cell, fault, err);
    rt_gpu_stopped(err, fault ? fault->ip : NULL);
    if (sig == SIGINT)
        rt_gpu_interrupted(err, cell);
    return -1;
}

int rt_session_protect(rt_session_t *s, void (*fn)(void *), void *arg, int cell_no,
                       rt_error_t *err)
{
    rt_fault_t fault;
    int sig = rt_protect_run(fn, arg, &fault);
    if (sig == 0)
        return 0;
    if (sig == RT_PROTECT_EXITED && fault.exit_status == 0)
        return 1;
    return run_failed(s, sig, &fault, cell_no, err);
}

/* What a run that ended with rc (rt_session_protect's) leaves: the
 * session's result, or err. 0 or -1. */
static int finish_run(rt_session_t *s, const run_t *r, int rc, int cell_no, rt_error_t *err)
{
    char *result = rt_result_take();
    if (rc < 0) {
        free(result);
        return -1;
    }
    if (rt_gpu_after_cell(cell_no, err) != 0) {
        free(result);
        return -1;
    }
    if (r->main && r->main_rc != 0) {
        free(result);
        char b[32];
        snprintf(b, sizeof b, "%d", r->main_rc);
        result = cm_strndup(b, strlen(b));
    }
    rt_value_free(&s->result);
    s->result.text = result;
    s->result.html = result ? rt_result_take_html() : NULL;
    return 0;
}

/* Compiles (or finds again) and runs code, a whole cell's text on the
 * cell's own lines, read once into toks (toks->src is the code).
 *
 * A compilation whose only functions are the cell's generated ones (its
 * statements: parts and entry) has code that nothing can call once the
 * cell has run: cells cannot name those functions, and pointers taken to
 * library or session functions are their real addresses, not PLT stubs.
 * That code (text, GOT, PLT) is given back to the arena after the run, or
 * when the cell leaves the re-run slots; its data (string literals, static
 * variables) is kept, since pointers to it may be anywhere. */
static int run_code(rt_session_t *s, const rt_tokens_t *toks, int cell_no, rt_error_t *err)
{
    const char *code = toks->src;
    run_t r = {0};
    rt_tcc_code_t once = {0};
    rt_session_note_code(s, code);
    if ((r.cell = find_rerun(s, code))) {
        rt_gpu_prepare_host(code, cell_no);
        s->stats.reruns++;
    } else {
        rt_plan_t plan = {0};
        rt_tcc_t *t = rt_session_compile_cell(s, toks, cell_no, &plan, err);
        if (!t) {
            rt_plan_free(&plan);
            return -1;
        }
        if (run_once(code, &plan)) /* before anything looks its functions up */
            rt_tcc_move_functions(t, "__gpuc_cell");
        rt_plan_complete(&plan, t);
        rt_session_commit(s, t, &plan);
        r.cell = (void (*)(void))rt_tcc_symbol(t, plan.entry_name);
        if (plan.has_main)
            r.main = (int (*)(int, char **))rt_tcc_symbol(t, "main");
        rt_tcc_list_symbols(t, s, rt_session_add_library_symbol);
        rt_tcc_lines(t, s, rt_session_add_line);
        if (r.cell && run_once(code, &plan) && rt_tcc_code_of(t, "__gpuc_cell", &once) != 0)
            once.n = 0;
        rt_tcc_free(t); /* every symbol the session needs is recorded */
        if (r.cell && rerunnable(code, &plan)) {
            keep_rerun(s, code, r.cell, &once);
            once.n = 0; /* given back when it leaves the slots */
        }
        rt_plan_free(&plan);
        if (!r.cell)
            return rt_error_set(err, "CompileError", 0, 0,
                                "the cell's code was not found after linking");
    }
    int rc = rt_session_run_entry(s, r.cell, r.main, cell_no, err);
    if (once.n) /* after a fault report, which names its lines */
        release_code(s, &once);
    return rc;
}

int rt_session_run_entry(rt_session_t *s, void (*cell)(void), int (*main)(int, char **),
                         int cell_no, rt_error_t *err)
{
    run_t r = {cell, main, 0};
    rt_result_reset();
    rt_display_set_emit(s->emit, s->emit_ctx);
    /* 1, exit(0): the cell ends there, successfully, as a program would */
    int rc = rt_session_protect(s, run_cell, &r, cell_no, err);
    rt_display_set_emit(NULL, NULL);
    return finish_run(s, &r, rc, cell_no, err);
}

int rt_session_run(rt_session_t *s, const rt_segment_t *seg, rt_error_t *err)
{
    if (rt_segment_is_blank(seg))
        return 0;
    rt_value_free(&s->result);
    char *code = rt_segment_source(seg);
    rt_tokens_t toks;
    rt_segment_tokens(seg, code, &toks);
    int rc = run_code(s, &toks, seg->cell, err);
    rt_tokens_free(&toks);
    free(code);
    return rc;
}

int rt_session_run_text(rt_session_t *s, const char *text, int cell_no, rt_error_t *err)
{
    rt_segment_t seg = rt_segment_of(text, 0, strlen(text), 1, cell_no);
    return rt_session_run(s, &seg, err);
}

rt_tcc_t *rt_session_compile_aux(rt_session_t *s, const char *body, cm_error_t *err)
{
    rt_plan_t none = {0};
    rt_error_t error = {0};
    rt_tcc_t *t = rt_session_new_state(s, &none, NULL, &error);
    if (!t) {
        CM_ERROR(err, 1, "%s", error.message);
        rt_error_free(&error);
        return NULL;
    }
    cm_buf_t src = {0};
    cm_buf_adds(&src, rt_session_header(s));
    cm_buf_adds(&src, "#line 1 \"session\"\n");
    rt_prelude_render(&s->prelude, NULL, &src);
    cm_buf_adds(&src, "#line 1 \"gpuc-magic\"\n");
    cm_buf_adds(&src, body);
    int rc = rt_tcc_compile(t, cm_buf_str(&src));
    cm_buf_free(&src);
    if (rc == 0)
        rc = rt_tcc_relocate(t);
    if (rc != 0) {
        size_t nd;
        const rt_diag_t *d = rt_tcc_diags(t, &nd);
        for (size_t i = 0; i < nd; i++)
            if (!d[i].warning) {
                CM_ERROR(err, 1, "%s:%d: %s", d[i].file, d[i].line, d[i].msg);
                break;
            }
        rt_tcc_free(t);
        return NULL;
    }
    return t;
}
