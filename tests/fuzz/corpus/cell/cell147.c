#define TWICE(s) s; s;
int cnt = 0;
TWICE(cnt++)
cnt
