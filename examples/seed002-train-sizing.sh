#!/usr/bin/env bash
# Seed 002, "Sizing AI training by cost per memory bandwidth": the seed's compare_options() run with
# its own placeholder hardware (H100-SXM, H200, L4 figures and prices) and its 70B example. Prints
# the seed's table in the seed's order (sorted by $/hr):
#   H200      1488.1 tokens/s/GPU  135 GPUs   $584.55/hr  compute  1.748 TB/s  $0.9/TB/s·hr
#   H100-SXM  1339.29              150         $589.5      compute  1.748       $1.17
#   L4        178.57               1120        $1288.0     compute  1.748       $3.83
# Requires `bwacct` on the PATH.
set -euo pipefail

HW='name=H100-SXM,tflops=900,hbm_TBps=3.35,nic_Gbps=200,price_hr=3.93'
HW+=';name=H200,tflops=1000,hbm_TBps=4.80,nic_Gbps=400,price_hr=4.33'
HW+=';name=L4,tflops=120,hbm_TBps=0.30,nic_Gbps=100,price_hr=1.15'

ARGS=(--params 70e9 --layers 80 --hidden 8192 --bytes-per-elem 2
      --gamma 1.2 --kappa 6 --alpha-opt 16 --c-act 5
      --tokens-per-step 512000 --bytes-per-grad 2 --dp 8
      --target-tokens-per-s 200000 --util 0.75 --hw "$HW")

bwacct train "${ARGS[@]}"

