# SWFFT, HACC's distributed 3-D FFT (block <-> pencil redistributions), the
# author's release d0ef314 as kept in a fork's history (the upstream lives on
# ANL's GitLab); TestDfft 10 128: 10 forward/backward 128^3 transforms.
# Needs libfftw3-dev; FFTW's flags are given since the Makefile looks for fftw-wisdom.
repo=lmcad-unicamp/SWFFT
commit=d0ef31454577740fbb87618cc35789b7ef838238
build() {
  make DFFT_MPI_CC=smpicc DFFT_MPI_CXX=smpicxx DFFT_FFTW_CPPFLAGS= \
    DFFT_FFTW_LDFLAGS='-lfftw3 -lm' build/TestDfft
}
specs=('swfft=@SRC@/build/TestDfft 10 128')
