#include "probe/MachineProbes.hpp"

#include "core/Error.hpp"

#include <algorithm>
#include <arpa/inet.h>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <fmt/format.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <utility>
#include <vector>

namespace perfcast::probe {
namespace {

constexpr int kRoundTrips = 200; // per sample

} // namespace

/// A connected or listening TCP socket, closed on destruction.
struct Socket {
  int fd = -1;
  Socket() = default;
  explicit Socket(int f) : fd(f) {}
  ~Socket()
  {
    if (fd >= 0)
      ::close(fd);
  }
  Socket(Socket&& o) noexcept : fd(o.fd) { o.fd = -1; }
  Socket& operator=(Socket&& o) noexcept
  {
    std::swap(fd, o.fd);
    return *this;
  }
  Socket(const Socket&) = delete;
  Socket& operator=(const Socket&) = delete;
};

namespace {

void no_delay(int fd)
{
  int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

bool transfer_all(int fd, char* data, int bytes, bool send)
{
  int done = 0;
  while (done < bytes) {
    ssize_t n = send ? ::send(fd, data + done, static_cast<std::size_t>(bytes - done), MSG_NOSIGNAL)
                     : ::recv(fd, data + done, static_cast<std::size_t>(bytes - done), 0);
    if (n <= 0) {
      if (n < 0 && errno == EINTR)
        continue;
      return false;
    }
    done += static_cast<int>(n);
  }
  return true;
}

void echo(int fd, int bytes)
{
  std::vector<char> buffer(static_cast<std::size_t>(bytes));
  while (transfer_all(fd, buffer.data(), bytes, false) && transfer_all(fd, buffer.data(), bytes, true)) {
  }
}

Socket listen_on(int port, int& bound_port)
{
  Socket s(::socket(AF_INET, SOCK_STREAM, 0));
  int one = 1;
  ::setsockopt(s.fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<std::uint16_t>(port));
  a.sin_addr.s_addr = port == 0 ? htonl(INADDR_LOOPBACK) : htonl(INADDR_ANY);
  socklen_t len = sizeof a;
  if (s.fd < 0 || ::bind(s.fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || ::listen(s.fd, 1) != 0 ||
      ::getsockname(s.fd, reinterpret_cast<sockaddr*>(&a), &len) != 0)
    throw Error(fmt::format("net probe: cannot listen on port {}: {}", port, std::strerror(errno)));
  bound_port = ntohs(a.sin_port);
  return s;
}

Socket connect_to(const std::string& host, const std::string& port)
{
  addrinfo hints{}, *found = nullptr;
  hints.ai_socktype = SOCK_STREAM;
  if (int rc = ::getaddrinfo(host.c_str(), port.c_str(), &hints, &found); rc != 0)
    throw Error(fmt::format("net probe: cannot resolve '{}:{}': {}", host, port, ::gai_strerror(rc)));
  Socket s;
  for (addrinfo* a = found; a; a = a->ai_next) {
    Socket c(::socket(a->ai_family, a->ai_socktype, a->ai_protocol));
    if (c.fd >= 0 && ::connect(c.fd, a->ai_addr, a->ai_addrlen) == 0) {
      s = std::move(c);
      break;
    }
  }
  ::freeaddrinfo(found);
  if (s.fd < 0)
    throw Error(fmt::format("net probe: cannot connect to {}:{}: {}", host, port, std::strerror(errno)));
  no_delay(s.fd);
  return s;
}

double now_s() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

} // namespace

NetSampler::NetSampler(int message_bytes) : message_bytes_(message_bytes)
{
  between_ = "loopback TCP between two processes on this host";
  int port = 0;
  Socket listener = listen_on(0, port);
  child_ = ::fork();
  if (child_ < 0)
    throw Error(fmt::format("net probe: cannot start the echo process: {}", std::strerror(errno)));
  if (child_ == 0) {
    int fd = ::accept(listener.fd, nullptr, nullptr);
    if (fd >= 0) {
      no_delay(fd);
      echo(fd, message_bytes);
    }
    ::_exit(0);
  }
  try {
    socket_ = std::make_unique<Socket>(connect_to("127.0.0.1", std::to_string(port)));
  } catch (...) {
    ::kill(child_, SIGKILL);
    ::waitpid(child_, nullptr, 0);
    throw;
  }
  sample(); // warm up: connection and caches
}

NetSampler::NetSampler(const std::string& host_port, int message_bytes) : message_bytes_(message_bytes)
{
  auto colon = host_port.rfind(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == host_port.size())
    throw Error(fmt::format("--net-peer '{}': expected HOST:PORT", host_port));
  between_ = "TCP with the echo server at " + host_port;
  socket_ = std::make_unique<Socket>(connect_to(host_port.substr(0, colon), host_port.substr(colon + 1)));
  sample();
}

NetSampler::~NetSampler()
{
  socket_.reset(); // the echo process ends when the connection closes
  if (child_ > 0)
    ::waitpid(child_, nullptr, 0);
}

std::vector<double> NetSampler::sample()
{
  // the sending call's time is o_s; the receiving call's, once the reply has
  // arrived (waited for with poll, not counted), is o_r; o is their mean and l
  // what remains of the one-way time, so that 2 o + l is the one-way time
  std::vector<char> buffer(static_cast<std::size_t>(message_bytes_), 'p');
  int fd = socket_->fd;
  double in_calls = 0, t0 = now_s();
  for (int i = 0; i < kRoundTrips; ++i) {
    double s0 = now_s();
    bool sent = transfer_all(fd, buffer.data(), message_bytes_, true);
    double s1 = now_s();
    pollfd ready{fd, POLLIN, 0};
    while (sent && ::poll(&ready, 1, -1) < 0 && errno == EINTR) {
    }
    double r0 = now_s();
    if (!sent || !transfer_all(fd, buffer.data(), message_bytes_, false))
      throw Error(fmt::format("net probe: the peer closed the connection ({})", between_));
    in_calls += (s1 - s0) + (now_s() - r0);
  }
  return {(now_s() - t0) / (2.0 * kRoundTrips), in_calls / (2.0 * kRoundTrips)};
}

NetFigure NetSampler::figure(const std::vector<Estimate>& figures) const
{
  NetFigure f;
  f.message_bytes = message_bytes_;
  f.between = between_;
  f.one_way_s = figures.at(0);
  f.overhead_s = figures.at(1);
  f.latency_s = std::max(0.0, f.one_way_s.mean - 2 * f.overhead_s.mean);
  return f;
}

void serve_net(int port, int message_bytes)
{
  int bound = 0;
  Socket listener = listen_on(port, bound);
  Socket peer(::accept(listener.fd, nullptr, nullptr));
  if (peer.fd < 0)
    throw Error(fmt::format("net probe: accept on port {} failed: {}", port, std::strerror(errno)));
  no_delay(peer.fd);
  echo(peer.fd, message_bytes);
}

} // namespace perfcast::probe
