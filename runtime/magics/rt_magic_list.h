/* rt_magic_list: THE list of magics, in the order %lsmagic lists them.
 *
 * X(name, cell, handler, usage, help) is a magic gpuc has: `cell` is 1 for
 * a cell magic (%%name), 0 for a line magic; the handler is a function of
 * rt_magic.h's rt_magic_fn shape, in a file of its own (rt_magic_<name>.c
 * or its family's). P(name, cell, usage, help) is a planned magic: running
 * it is a NotImplemented error. A new magic is a new file plus one line
 * here. docs/magics.md describes them. */
#ifndef RT_MAGIC_LIST_H
#define RT_MAGIC_LIST_H

#define RT_MAGIC_LIST(X, P) \
    X("lsmagic", 0, rt_magic_lsmagic, \
      "%lsmagic", \
      "Lists the magics available now, then those that are planned.") \
    X("who", 0, rt_magic_who, \
      "%who [TYPE ...]", \
      "Lists the names of the session's variables, sorted, tab-separated. With TYPEs " \
      "(as declared, e.g. `%who int double`) only variables of those types. Functions " \
      "are not variables and are not listed.") \
    X("whos", 0, rt_magic_whos, \
      "%whos [TYPE ...]", \
      "Like %who, as a table: each variable's name, its C type as declared and its " \
      "value (numbers and strings as results are shown; arrays by element count, " \
      "structs by size).") \
    X("reset", 0, rt_magic_reset, \
      "%reset [-f]", \
      "Starts a fresh session: every variable, function, type, macro, #include, %lib " \
      "and %cflags is forgotten; the kernel keeps running. Cannot be undone (-f is " \
      "accepted; gpuc never asks for confirmation).") \
    X("lib", 0, rt_magic_lib, \
      "%lib [NAME ...]", \
      "Links the system library libNAME.so (e.g. `%lib z`, `%lib pthread`) into the " \
      "cells that follow, in this cell and later ones; `%lib` alone lists the linked " \
      "libraries. Found like the dynamic loader does, then as libNAME.so.N in " \
      "LD_LIBRARY_PATH and the system library folders. Write the #include for its " \
      "declarations yourself.") \
    X("cflags", 0, rt_magic_cflags, \
      "%cflags [OPTIONS | --reset]", \
      "Adds TCC options for the cells that follow: -I DIR, -isystem DIR, -D NAME[=VALUE], " \
      "-U NAME, -w, -W..., -f..., -O, -g, -std=... `%cflags` alone shows them, " \
      "`%cflags --reset` clears them. -b (bounds checking) is not supported: this " \
      "libtcc cannot check bounds in memory.") \
    X("timeit", 0, rt_magic_timeit, \
      "%timeit [-n N] [-r R] [-q] [-o] STATEMENT", \
      "Times a statement as IPython does: loops grow by tens until a run takes 0.2 s, " \
      "7 runs, mean and standard deviation per loop; GPU time shown apart.") \
    X("timeit", 1, rt_magic_timeit_cell, \
      "%%timeit [-n N] [-r R] [-q] [-o] [SETUP]", \
      "Times the cell's code as %timeit times a statement; the rest of the magic line is " \
      "setup code, run before each timed run.") \
    X("time", 1, rt_magic_time, \
      "%%time", \
      "Runs the cell once and shows its wall time, CPU time and GPU time; compile time " \
      "is shown apart.") \
    X("speedup", 1, rt_magic_speedup, \
      "%%speedup [--devices] [--check CPU,GPU[:COUNT] | --check ARRAY]... [--rtol R] " \
      "[--atol A] [--sizes S,...] [--var NAME] [-n N] [-r R]", \
      "Times the cell's //%% cpu section against its //%% gpu section by %timeit's rules " \
      "(after an optional //%% setup section), checks that the outputs named by --check agree, " \
      "and shows CPU time, GPU kernel time, GPU time with transfers and both speedups; " \
      "--sizes repeats it for each value of N (--var) and draws the times and the speedup " \
      "against size, marking where the GPU starts to win. With --devices the cell has a " \
      "//%% run section of array code, run on the CPU backend and then on the GPU (after " \
      "//%% setup on each), --check ARRAY comparing the array it leaves on both.") \
    X("kernel", 1, rt_magic_kernel, \
      "%%kernel [NVRTC OPTIONS]", \
      "Compiles the cell as CUDA C++ device code with NVRTC; its __global__ kernels " \
      "become callable from host cells with <<<grid, block>>>.") \
    X("cuda", 1, rt_magic_kernel, \
      "%%cuda [NVRTC OPTIONS]", \
      "Another name for %%kernel. A cell that holds a whole program (its kernels and " \
      "host code with main(), as nvcc4jupyter's %%cuda cells do) runs it: the kernels are " \
      "compiled, then main() runs, on the GPU or on the simulator.") \
    X("elementwise", 1, rt_magic_elementwise, \
      "%%elementwise NAME(T a, T b, ...) -> T c", \
      "Defines an elementwise function of arrays from C statements that set the result " \
      "(`c = (a - b) * (a - b);`), like CuPy's ElementwiseKernel. Types are dtype names " \
      "(float32, int64...) or a type variable (T): arguments of one variable are promoted " \
      "together. Host cells then call NAME(x, y) and NAME_out(out, x, y) on arrays and " \
      "numbers (broadcasting, any strides, one kernel per dtype combination, compiled on " \
      "first use and cached), and expressions may call it: ga_map(\"NAME(a, b) + 1\", x, y).") \
    X("reduce", 1, rt_magic_reduce, \
      "%%reduce NAME(T x, ...) -> T s", \
      "Defines a reduction of arrays, like CuPy's ReductionKernel, from lines `map: EXPR` " \
      "(of the parameters), `reduce: EXPR` (combines a and b; must be associative), " \
      "`identity: EXPR` and optionally `post: EXPR` (of the total a and the count n). " \
      "NAME(x, ...) reduces every element to a 0-d array; with one parameter " \
      "NAME_axis(x, axis, keepdims) reduces along an axis; ga_map(\"NAME(a * b)\", x, y) " \
      "maps an expression first, in the same pass.") \
    X("cc", 1, rt_magic_cc, \
      "%%cc [CFLAGS]", \
      "Compiles the cell (definitions only) with the system C compiler ($CC, else cc; " \
      "-O2 -march=native unless flags are given) into the session, for fast CPU baselines: " \
      "later cells call its functions and use its variables, and it uses theirs.") \
    X("cpp", 1, rt_magic_cpp, \
      "%%cpp [CXXFLAGS]", \
      "Runs the cell as C++ host code, as nvcc hands host code to the system C++ compiler: " \
      "compiled by g++ ($CXX; -O2 unless flags are given, always -std=gnu++17) into the " \
      "session; its statements run in order, <<<>>> launches work, it sees earlier cells' " \
      "C declarations, and later C cells call its extern \"C\" functions. A cell with " \
      "#include <iostream>, std::, new T[n]... is C++ without the magic.") \
    X("c++", 1, rt_magic_cpp, \
      "%%c++ [CXXFLAGS]", \
      "Another name for %%cpp.") \
    X("gpu", 0, rt_magic_gpu, \
      "%gpu [N]", \
      "Shows the GPUs (name, compute capability, SMs, memory) and the driver, NVRTC and CUDA " \
      "runtime versions; %gpu N makes device N the one kernels run on.") \
    X("memory", 0, rt_magic_memory, \
      "%memory [free | limit SIZE]", \
      "Shows memory per device: bytes the arrays use, bytes the pool caches, free and " \
      "total; then the live arrays by the variable that holds them. %memory free gives " \
      "the cached blocks back to the driver; %memory limit 8GB caps what the current " \
      "device's pool holds (none: no cap).") \
    X("device", 0, rt_magic_device, \
      "%device [cpu | gpu | gpuN | simN | N]", \
      "Shows or switches where new arrays go and kernels run: the CPU backend, or a GPU by " \
      "number (gpu is gpu0), or a simulated device (simN; where there is no GPU, gpuN names " \
      "simN). Arrays already made stay where they are; ga_to_device copies; operations run " \
      "on their arrays' device. With no argument: the devices, their memory and links.") \
    X("sim", 0, rt_magic_sim, \
      "%sim [--seed N | --seed off] [--threads N | --threads auto] [--memcheck | " \
      "--no-memcheck] [--racecheck | --no-racecheck] [--devices N]", \
      "Shows the CUDA simulator's settings (docs/simulator.md); --seed N runs the warps and " \
      "blocks of later launches in an order shuffled by N, the same for the same N, so that " \
      "order-dependent bugs show reproducibly; --seed off goes back to index order (the " \
      "default). --threads N runs the blocks of a launch on N worker threads at once (auto, " \
      "the default: one per CPU, at most 64; 1: one block after another); results, printf " \
      "order and errors are the same with any N. memcheck (on by default; --no-memcheck " \
      "turns it off, --memcheck on again) stops a kernel at an out-of-bounds, " \
      "use-after-free, host-pointer or misaligned access with a report; the timing magics " \
      "time without it. --racecheck (and --no-racecheck) reports data races in shared and " \
      "global memory at the end of the cell. --devices N presents N simulated devices " \
      "(sim0..simN-1, as GPUC_SIM_DEVICES=N), each with its own arrays.") \
    X("recover", 0, rt_magic_recover, \
      "%recover", \
      "After the executor had to be replaced (exit(), a fault that could not be caught, a " \
      "lost GPU context), re-runs in order the cells that had succeeded before, without " \
      "their output, and reports what was restored. Run it alone in a cell: the kernel " \
      "handles it.") \
    P("ptx", 0, \
      "%ptx KERNEL", \
      "Shows the PTX of a kernel compiled in an earlier cell.") \
    X("sh", 0, rt_magic_sh_line, \
      "!COMMAND  or  %sh COMMAND", \
      "Runs COMMAND with sh, from the executor's folder (%cd), as `!nvcc -o app app.cu` " \
      "in IPython; its output streams to the notebook in order with what the cell printed; " \
      "a non-zero exit status is shown on stderr and the cell goes on. An interrupt stops " \
      "the command (and the cell).") \
    X("sh", 1, rt_magic_sh, \
      "%%sh", \
      "Runs the rest of the cell as an sh script; its output streams to the notebook. A " \
      "non-zero exit status is an error (CalledProcessError).") \
    X("bash", 1, rt_magic_bash, \
      "%%bash", \
      "Like %%sh, with bash.") \
    X("writefile", 1, rt_magic_writefile, \
      "%%writefile [-a] FILE", \
      "Writes the rest of the cell to FILE (-a appends), e.g. a .cu file for `!nvcc`; says " \
      "Writing, Overwriting or Appending to. Nothing of the cell runs.") \
    X("load", 0, rt_magic_load, \
      "%load FILE", \
      "Replaces the cell with `// %load FILE` and the file's text, for you to edit and run " \
      "(the front end does the replacing: JupyterLab, Notebook; jupyter console puts it " \
      "at the next prompt).") \
    X("cd", 0, rt_magic_cd, \
      "%cd [DIR | -]", \
      "Changes the executor's working folder (later cells, ! commands and %%writefile " \
      "use it) and shows it; %cd alone goes to $HOME, %cd - back to the folder before.") \
    X("pwd", 0, rt_magic_pwd, \
      "%pwd", \
      "Shows the executor's working folder.") \
    X("env", 0, rt_magic_env, \
      "%env [NAME | NAME=VALUE]", \
      "Lists the executor's environment variables; %env NAME shows one; %env NAME=VALUE " \
      "(or %env NAME VALUE) sets it for later cells and the programs they start.") \
    X("limits", 0, rt_magic_limits, \
      "%limits", \
      "Shows this kernel's limits as the operator set them (GPUC_LIMIT_* in the kernelspec's " \
      "env or the server's environment; docs/hosting.md): the memory the cells may " \
      "allocate, each device pool's limit, the output per cell and per second, and the " \
      "time a cell may run. Cells cannot raise them.") \
    X("profile", 1, rt_magic_profile_cell, \
      "%%profile [--counters]", \
      "Runs the cell and shows every kernel launch, array kernel, BLAS call and copy it " \
      "made: grid and block, time, bytes read and written in device memory, bandwidth and " \
      "FLOP/s against the device's peaks, occupancy, registers and shared memory; totals " \
      "per name, a verdict per kernel (memory- or compute-bound, how far from the roof), a " \
      "timeline and a roofline; the numbers as JSON in the output's metadata. On a GPU " \
      "times come from CUPTI and --counters replays each kernel to count bytes and FLOPs; " \
      "on the simulator every launch is counted, and marked simulated.") \
    X("profile", 0, rt_magic_profile, \
      "%profile [--counters] STATEMENT", \
      "Profiles one statement as %%profile profiles a cell.")

#endif
