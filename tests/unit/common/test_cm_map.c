/* test_cm_map: the string index (cm_map) and growing arrays (cm_vec):
 * lookups by whole and partial keys, duplicates, growth past many keys,
 * clearing. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cm_map.h"
#include "cm_vec.h"

static void count(void *ctx, size_t value)
{
    size_t *seen = ctx;
    seen[value]++;
}

static void test_map(void)
{
    cm_map_t m = {0};
    CHECK(cm_map_get(&m, "absent", (size_t)-1) == -1);
    cm_map_put(&m, "alpha", 1);
    cm_map_put(&m, "beta", 2);
    CHECK(cm_map_get(&m, "alpha", (size_t)-1) == 1);
    CHECK(cm_map_get(&m, "beta", (size_t)-1) == 2);
    CHECK(cm_map_get(&m, "alph", (size_t)-1) == -1);
    CHECK(cm_map_get(&m, "alphabet", 5) == 1); /* a key inside a longer text */
    CHECK(cm_map_get(&m, "alphabet", (size_t)-1) == -1);
    /* a key put twice: get finds the first, each visits both */
    cm_map_put(&m, "alpha", 3);
    CHECK(cm_map_get(&m, "alpha", (size_t)-1) == 1);
    size_t seen[4] = {0};
    cm_map_each(&m, "alpha", (size_t)-1, count, seen);
    CHECK(seen[1] == 1 && seen[3] == 1 && seen[2] == 0);
    cm_map_clear(&m);
    CHECK(cm_map_get(&m, "alpha", (size_t)-1) == -1 && m.n == 0);
    cm_map_free(&m);
}

static void test_growth(void)
{
    enum { N = 20000 };
    char (*names)[16] = malloc(N * sizeof *names);
    cm_map_t m = {0};
    for (size_t i = 0; i < N; i++) {
        snprintf(names[i], sizeof names[i], "name%zu", i);
        cm_map_put(&m, names[i], i);
    }
    size_t wrong = 0;
    for (size_t i = 0; i < N; i++)
        wrong += cm_map_get(&m, names[i], (size_t)-1) != (long)i;
    CHECK(wrong == 0);
    CHECK(m.n == N && m.nslots >= 2 * N);
    CHECK(cm_map_get(&m, "name20000", (size_t)-1) == -1);
    cm_map_free(&m);
    free(names);
}

static void test_vec(void)
{
    int *v = NULL;
    size_t n = 0, cap = 0;
    for (int i = 0; i < 1000; i++) {
        CM_VEC_GROW(v, n, cap);
        v[n++] = i;
    }
    CHECK(n == 1000 && cap >= 1000);
    long sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += v[i];
    CHECK(sum == 999L * 1000 / 2);
    free(v);
}

int main(void)
{
    test_map();
    test_growth();
    test_vec();
    return check_report("test_cm_map");
}
