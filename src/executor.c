/* gpuc-executor: the executor process alone (see runtime/rt_executor.h).
 *
 * `gpuc executor` is the same thing; this binary exists because it does
 * not load the kernel's libraries (libzmq pulls in libstdc++, Kerberos,
 * PGM and NORM), which saves every session ~2.4 MB of resident memory.
 * The kernel starts it when it lies beside the gpuc binary. */
#include "rt_executor.h"

int main(int argc, char **argv)
{
    return rt_executor_main(argc, argv);
}
