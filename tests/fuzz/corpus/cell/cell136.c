const char *s = "a { b ; c } d";   // a comment with { and ; too
char open = '{', semi = ';';
/* a block comment { ;
   across lines } with "a string" inside
*/
int after = 5;
printf("%s %c%c\n", s, open, semi);
