#define LOG(fmt, ...) printf("[log] " fmt "\n", __VA_ARGS__)
LOG("%d and %d", p1, p2);
