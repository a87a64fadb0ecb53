==8449== NVPROF is profiling process 8449, command: ./affine.o
==8449== Profiling application: ./affine.o
==8449== Profiling result:
No kernels were profiled.

==8449== API calls:
No API activities were profiled.
