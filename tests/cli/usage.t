# The top-level help, a missing or misspelt subcommand, and a misspelt flag.
$ perfcast --help
> perfcast: predict how an MPI application performs on a machine you do not have
> Usage: perfcast [OPTIONS] SUBCOMMAND
>
> Options:
>   -h,--help                   Print this help message and exit
>   --version                   Display program version information and exit
>
> Subcommands:
>   replay                      replay a time-independent MPI trace on a platform
>   list                        list network models, collective algorithms, placements, balancers, scheduling policies, distributions
>   trace                       run an MPI program with the tracer preloaded: perfcast trace -o DIR -- mpirun -np 4 ./app
>   profile                     report the run profile of a traced run
>   fit                         fit a performance model to measured runs
>   predict                     predict run times with a fitted model or an application model
>   compare                     leave-one-out accuracy of the queueing model and the Amdahl baseline
>   model                       the application model learned from traces at a few process counts
>   extrapolate                 write the program's trace at another process count
>   forecast                    forecast run times at larger counts on a target platform from a program's runs at a few counts, with the best-validated method
>   platform                    write a platform file describing a machine
>   schedule                    simulate processes or rigid jobs on a platform's computers under a policy
>   lb                          Charm++ load balancers on a load database
>   probe                       measure this machine (cpu, memory slowdown, disk, messages) as a platform
>   comm                        communication of the MPI version of a sequential program, from its value flow (build it with perfcast-cc)
>   kernels                     reference kernels and their database (docs/phases.md)
>   phases                      predict a large run from small ones (phases matched to kernels)
>   aggregate                   turn a V-rank trace into a V'-rank one (blocks of ranks merged; iterations delimited by migrate lines)
>
$ perfcast
! error: perfcast: a subcommand is required; 'perfcast --help' lists the commands
? 2
$ perfcast replya
! error: perfcast: unknown command 'replya' (did you mean 'replay'?); 'perfcast --help' lists the commands
? 2
$ perfcast replay examples/traces/stencil16 --platfrom examples/platforms/cluster16.xml
! error: perfcast replay: unknown option '--platfrom' (did you mean '--platform'?); 'perfcast replay --help' lists its options
? 2
