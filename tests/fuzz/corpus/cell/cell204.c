%%cc
int ok = 1;
ok++;
