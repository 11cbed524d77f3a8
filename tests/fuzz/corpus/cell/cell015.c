struct node tail = {2, NULL};
struct node head = {1, &tail};
head.next->value
