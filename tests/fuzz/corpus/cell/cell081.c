int target = 5;
&target
