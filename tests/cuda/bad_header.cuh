/* A header with an error on line 3, for the syntax check's include test. */
__device__ int helper(int x)
{ return x +; }
