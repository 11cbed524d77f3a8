/* sim_fiber: user-level contexts (see sim_fiber.h). */
#include "sim_fiber.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#endif

#if defined(__x86_64__) && !defined(GPUC_SIM_UCONTEXT)
#define NATIVE 1
#else
#define NATIVE 0
#include <ucontext.h>
#endif

int sim_stack_new(sim_stack_t *s, size_t size)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size = (size + page - 1) / page * page;
    void *p = mmap(NULL, size + page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                   -1, 0);
    if (p == MAP_FAILED)
        return -1;
    mprotect(p, page, PROT_NONE); /* an overflow faults instead of writing over a neighbour */
    s->base = p;
    s->size = size;
    return 0;
}

/* A new fiber starts on a stack with no frames. Under AddressSanitizer the
 * redzones of a fiber left for good (a device assert, a deadlock) would
 * stay poisoned and be taken for overflows in the next fiber there. */
static void fresh_stack(sim_stack_t *stack)
{
#if defined(__SANITIZE_ADDRESS__)
    __asan_unpoison_memory_region((char *)stack->base + sysconf(_SC_PAGESIZE), stack->size);
#else
    (void)stack;
#endif
}

void sim_stack_free(sim_stack_t *s)
{
    if (s->base)
        munmap(s->base, s->size + (size_t)sysconf(_SC_PAGESIZE));
    s->base = NULL;
}

int sim_fiber_native(void)
{
    return NATIVE;
}

#if NATIVE

/* sim_switch(from_sp, to_sp): pushes the callee-saved registers, stores
 * the stack pointer in *from_sp, loads to_sp and pops the same from there.
 * The SSE and x87 control words are not switched (ldmxcsr and fldcw cost
 * more than the rest together): every fiber of the simulator shares the
 * executor's rounding mode, as kernels cannot change it on a GPU either.
 * The 8-byte slot keeps the layout sim_fiber_make writes. */
void sim_switch(void **from_sp, void *to_sp);
__asm__(".text\n"
        ".globl sim_switch\n"
        ".hidden sim_switch\n"
        ".type sim_switch,@function\n"
        "sim_switch:\n"
        "    pushq %rbp\n"
        "    pushq %rbx\n"
        "    pushq %r12\n"
        "    pushq %r13\n"
        "    pushq %r14\n"
        "    pushq %r15\n"
        "    subq $8, %rsp\n"
        "    movq %rsp, (%rdi)\n"
        "    movq %rsi, %rsp\n"
        "    addq $8, %rsp\n"
        "    popq %r15\n"
        "    popq %r14\n"
        "    popq %r13\n"
        "    popq %r12\n"
        "    popq %rbx\n"
        "    popq %rbp\n"
        "    ret\n"
        ".size sim_switch, .-sim_switch\n"
        /* a new fiber's first switch returns here with fn in r12 and arg in
         * r13, the stack 16-byte aligned */
        ".globl sim_fiber_entry\n"
        ".hidden sim_fiber_entry\n"
        ".type sim_fiber_entry,@function\n"
        "sim_fiber_entry:\n"
        "    movq %r13, %rdi\n"
        "    callq *%r12\n"
        "    ud2\n"
        ".size sim_fiber_entry, .-sim_fiber_entry\n");
void sim_fiber_entry(void);

void sim_fiber_make(sim_context_t *ctx, sim_stack_t *stack, void (*fn)(void *), void *arg)
{
    fresh_stack(stack);
    uintptr_t top = ((uintptr_t)stack->base + (size_t)sysconf(_SC_PAGESIZE) + stack->size) & ~(uintptr_t)15;
    uint64_t *ret = (uint64_t *)(top - 24); /* after `ret`, rsp = top - 16: aligned */
    uint64_t *sp = ret - 7;
    memset(sp, 0, 7 * sizeof *sp);
    sp[4] = (uint64_t)(uintptr_t)fn;        /* r12 */
    sp[3] = (uint64_t)(uintptr_t)arg;       /* r13 */
    *ret = (uint64_t)(uintptr_t)sim_fiber_entry;
    ctx->sp = sp;
}

void sim_fiber_switch(sim_context_t *from, sim_context_t *to)
{
    sim_switch(&from->sp, to->sp);
}

void sim_context_clear(sim_context_t *ctx)
{
    ctx->sp = NULL;
}

#else

static ucontext_t *uc_of(sim_context_t *ctx)
{
    if (!ctx->uc)
        ctx->uc = calloc(1, sizeof(ucontext_t));
    if (!ctx->uc)
        abort();
    return ctx->uc;
}

void sim_fiber_make(sim_context_t *ctx, sim_stack_t *stack, void (*fn)(void *), void *arg)
{
    fresh_stack(stack);
    ucontext_t *uc = uc_of(ctx);
    getcontext(uc);
    uc->uc_stack.ss_sp = (char *)stack->base + sysconf(_SC_PAGESIZE);
    uc->uc_stack.ss_size = stack->size;
    uc->uc_link = NULL;
    /* glibc's makecontext passes 64-bit arguments on the 64-bit targets */
    makecontext(uc, (void (*)(void))fn, 1, arg);
}

void sim_fiber_switch(sim_context_t *from, sim_context_t *to)
{
    swapcontext(uc_of(from), uc_of(to));
}

void sim_context_clear(sim_context_t *ctx)
{
    free(ctx->uc);
    ctx->uc = NULL;
}

#endif
