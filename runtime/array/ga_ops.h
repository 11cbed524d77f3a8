/* ga_ops: THE list of the named array operations cells call — each one
 * expression of ga_expr's language, so that ga_add(x, y) and
 * ga_map("a + b", x, y) are one kernel. From this list come gpuc.h's
 * macros (runtime/cell/rt_header.c: name(a, b) and name_out(out, a, b))
 * and the reference in docs/arrays.md. A new operation is one line. */
#ifndef GA_OPS_H
#define GA_OPS_H

/* X(name, expression) — one operand, a */
#define GA_UNARY_OPS(X)                                                                      \
    X(ga_neg, "-a") X(ga_abs, "abs(a)") X(ga_sign, "sign(a)") X(ga_square, "square(a)")       \
    X(ga_sqrt, "sqrt(a)") X(ga_cbrt, "cbrt(a)") X(ga_exp, "exp(a)") X(ga_exp2, "exp2(a)")     \
    X(ga_expm1, "expm1(a)") X(ga_log, "log(a)") X(ga_log2, "log2(a)")                        \
    X(ga_log10, "log10(a)") X(ga_log1p, "log1p(a)") X(ga_sin, "sin(a)") X(ga_cos, "cos(a)")   \
    X(ga_tan, "tan(a)") X(ga_arcsin, "arcsin(a)") X(ga_arccos, "arccos(a)")                  \
    X(ga_arctan, "arctan(a)") X(ga_sinh, "sinh(a)") X(ga_cosh, "cosh(a)")                    \
    X(ga_tanh, "tanh(a)") X(ga_erf, "erf(a)") X(ga_floor, "floor(a)") X(ga_ceil, "ceil(a)")   \
    X(ga_trunc, "trunc(a)") X(ga_rint, "rint(a)") X(ga_isnan, "isnan(a)")                    \
    X(ga_isinf, "isinf(a)") X(ga_isfinite, "isfinite(a)") X(ga_logical_not, "!a")            \
    X(ga_invert, "~a")

/* X(name, expression) — two operands, a and b */
#define GA_BINARY_OPS(X)                                                                     \
    X(ga_add, "a + b") X(ga_sub, "a - b") X(ga_mul, "a * b") X(ga_div, "a / b")               \
    X(ga_mod, "a % b") X(ga_pow, "a ** b") X(ga_maximum, "maximum(a, b)")                    \
    X(ga_minimum, "minimum(a, b)") X(ga_eq, "a == b") X(ga_ne, "a != b") X(ga_lt, "a < b")     \
    X(ga_le, "a <= b") X(ga_gt, "a > b") X(ga_ge, "a >= b") X(ga_logical_and, "a && b")      \
    X(ga_logical_or, "a || b") X(ga_bitwise_and, "a & b") X(ga_bitwise_or, "a | b")          \
    X(ga_bitwise_xor, "a ^ b") X(ga_left_shift, "a << b") X(ga_right_shift, "a >> b")        \
    X(ga_arctan2, "arctan2(a, b)") X(ga_hypot, "hypot(a, b)") X(ga_fmod, "fmod(a, b)")

/* X(name, expression, first, second, third) — three operands, in order */
#define GA_TERNARY_OPS(X)                                                                    \
    X(ga_where, "where(c, a, b)", c, a, b) X(ga_clip, "clip(a, lo, hi)", a, lo, hi)

/* X(name) — the reductions: ga_<name>(a) is a C double of the whole
 * array, ga_<name>_axis(a, axis, keepdims) an array (axis GA_ALL: 0-d) */
#define GA_REDUCTIONS(X)                                                                     \
    X(sum) X(prod) X(min) X(max) X(mean) X(var) X(std) X(argmin) X(argmax) X(any) X(all)     \
    X(count_nonzero)

/* X(name) — the reductions whose result on an integer array is an integer
 * that a double may not hold (past 2^53): ga_<name>_i64(a) is it exactly,
 * as a long long */
#define GA_INT_REDUCTIONS(X) X(sum) X(prod) X(min) X(max)

#endif
