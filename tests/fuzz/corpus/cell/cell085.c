struct pair { int a, b; } pr = {1, 2};
pr
