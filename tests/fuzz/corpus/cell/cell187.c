int before = 1;
%nosuch
int after = 2;
