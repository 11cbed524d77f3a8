extern int opterr;
opterr
