# HPL 2.3, the LINPACK benchmark: a 2-D block-cyclic LU (panel broadcasts along process
# rows, row swaps along columns) of N = 2000 in blocks of 64, on a P x Q grid per count.
# HPL builds from a Make.ARCH file, written here: SMPI's compiler, Debian's reference
# BLAS through its CBLAS interface, and -DHPL_NO_MPI_DATATYPE (the replay reads only
# predefined datatypes). HPL reads HPL.dat from the run's directory: prepare_hpl writes it.
repo=icl-utk-edu/hpl
commit=9edeab5e1713116c4231e5d3aa6159b5b747ede8
build() {
  cat > Make.smpi <<MAKE
SHELL = /bin/sh
CD = cd
CP = cp
LN_S = ln -s
MKDIR = mkdir
RM = /bin/rm -f
TOUCH = touch
ARCH = smpi
TOPdir = $PWD
INCdir = \$(TOPdir)/include
BINdir = \$(TOPdir)/bin/\$(ARCH)
LIBdir = \$(TOPdir)/lib/\$(ARCH)
HPLlib = \$(LIBdir)/libhpl.a
HPL_INCLUDES = -I\$(INCdir) -I\$(INCdir)/\$(ARCH)
HPL_LIBS = \$(HPLlib) -lblas -lm
HPL_OPTS = -DHPL_CALL_CBLAS -DHPL_NO_MPI_DATATYPE
HPL_DEFS = \$(HPL_OPTS) \$(HPL_INCLUDES)
CC = smpicc
CCNOOPT = \$(HPL_DEFS)
CCFLAGS = \$(HPL_DEFS) -O2
LINKER = smpicc
LINKFLAGS = \$(CCFLAGS)
ARCHIVER = ar
ARFLAGS = r
RANLIB = echo
MAKE
  make arch=smpi
}
hpl_grid() { # n -> "P Q"
  case $1 in
    1) echo 1 1 ;; 2) echo 1 2 ;; 4) echo 2 2 ;; 8) echo 2 4 ;; 16) echo 4 4 ;; 32) echo 4 8 ;;
    64) echo 8 8 ;; *) echo "hpl_grid: no grid for $1" >&2; return 1 ;;
  esac
}
prepare_hpl() { # N DIR: HPL.dat, one problem: N 2000, NB 64, right-looking, 1-ring, lookahead 1
  local p q
  read -r p q < <(hpl_grid "$1")
  cat > HPL.dat <<DAT
HPLinpack benchmark input file
perfcast queueing study
HPL.out      output file name (if any)
6            device out (6=stdout,7=stderr,file)
1            # of problems sizes (N)
2000         Ns
1            # of NBs
64           NBs
0            PMAP process mapping (0=Row-,1=Column-major)
1            # of process grids (P x Q)
$p           Ps
$q           Qs
16.0         threshold
1            # of panel fact
2            PFACTs (0=left, 1=Crout, 2=Right)
1            # of recursive stopping criterium
4            NBMINs (>= 1)
1            # of panels in recursion
2            NDIVs
1            # of recursive panel fact.
2            RFACTs (0=left, 1=Crout, 2=Right)
1            # of broadcast
0            BCASTs (0=1rg,1=1rM,2=2rg,3=2rM,4=Lng,5=LnM)
1            # of lookahead depth
1            DEPTHs (>=0)
2            SWAP (0=bin-exch,1=long,2=mix)
64           swapping threshold
0            L1 in (0=transposed,1=no-transposed) form
0            U  in (0=transposed,1=no-transposed) form
1            Equilibration (0=no,1=yes)
8            memory alignment in double (> 0)
DAT
}
export -f hpl_grid
specs=('hpl=@SRC@/bin/smpi/xhpl')
