package org.gpuemu.emulator.dashboard;

import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * Who may steer a run from the dashboard ({@code POST /control}). Three checks on every control request:
 * <ul>
 *   <li>{@code Host}: on loopback it must name loopback ({@code 127.0.0.1}, {@code localhost}, {@code [::1]}) and the
 *   bound port, so that a page of another site whose name was made to resolve to 127.0.0.1 (DNS rebinding) cannot
 *   post; bound to one address it must name that address or a name that resolves to it; bound to every address
 *   ({@code 0.0.0.0}, {@code ::}) any host is taken, and the token is what protects.</li>
 *   <li>{@code Origin}: a browser sends it with every POST; when present it must be this dashboard's own origin
 *   ({@code http://} + the request's Host), so a page of another site cannot post even on loopback. A request without
 *   one (curl, a script) is not a browser's cross-site request.</li>
 *   <li>A token, when the dashboard listens beyond loopback: 128 random bits made at start and printed with the
 *   address; the request carries it as {@code Authorization: Bearer TOKEN}. Reading (the page, the event stream)
 *   needs none.</li>
 * </ul>
 * A refused request is answered 403 with one line naming the header.
 */
final class ControlGuard {
  private final String bindHost;
  private final int port;
  private final boolean loopback;
  private final boolean wildcard;
  private final String token;

  private ControlGuard(String bindHost, int port, boolean loopback, boolean wildcard, String token) {
    this.bindHost = bindHost;
    this.port = port;
    this.loopback = loopback;
    this.wildcard = wildcard;
    this.token = token;
  }

  /** The guard of a dashboard bound to {@code bindHost:port}: a fresh token unless it listens on loopback only. */
  static ControlGuard of(String bindHost, int port) {
    InetAddress address = resolve(bindHost);
    boolean loopback = address != null && address.isLoopbackAddress();
    boolean wildcard = address != null && address.isAnyLocalAddress();
    String token = null;
    if (!loopback) {
      byte[] bits = new byte[16];
      new SecureRandom().nextBytes(bits);
      token = HexFormat.of().formatHex(bits);
    }
    return new ControlGuard(bindHost, port, loopback, wildcard, token);
  }

  /** The token a control must carry; null when none is needed (loopback). */
  String token() {
    return token;
  }

  /**
   * Why a control request with these headers is refused, or empty when it may go on; {@code host} is the request's
   * Host header (empty when it had none), {@code origin} its Origin, {@code authorization} its Authorization.
   */
  Optional<String> refusal(Optional<String> host, Optional<String> origin, Optional<String> authorization) {
    if (host.isEmpty() || host.get().isBlank()) return Optional.of("Host: missing");
    String h = host.get().trim().toLowerCase(Locale.ROOT);
    if (!hostAllowed(h)) {
      return Optional.of("Host: " + h + " is not this dashboard's address (" + shown(bindHost) + ":" + port + ")");
    }
    if (origin.isPresent()) {
      String o = origin.get().trim().toLowerCase(Locale.ROOT);
      if (!o.equals("http://" + h)) {
        return Optional.of("Origin: " + o + " is not this dashboard's (http://" + h + "); controls are refused to "
            + "other sites' pages");
      }
    }
    if (token != null) {
      String expected = "bearer " + token;
      String given = authorization.map(a -> a.trim().toLowerCase(Locale.ROOT)).orElse("");
      if (!MessageDigest.isEqual(expected.getBytes(), given.getBytes())) {
        return Optional.of("Authorization: the dashboard listens beyond loopback; a control needs the token printed "
            + "at start, as 'Authorization: Bearer TOKEN'");
      }
    }
    return Optional.empty();
  }

  private static final Set<String> LOOPBACK_NAMES = Set.of("127.0.0.1", "localhost", "[::1]");

  private boolean hostAllowed(String h) {
    String name;
    int p;
    try {
      URI u = URI.create("http://" + h + "/");
      if (u.getHost() == null) return false;
      name = u.getHost();
      p = u.getPort() < 0 ? 80 : u.getPort();
    } catch (IllegalArgumentException e) {
      return false;
    }
    if (p != port) return false;
    if (loopback) return LOOPBACK_NAMES.contains(name);
    if (wildcard) return true;
    if (name.equalsIgnoreCase(bindHost) || ("[" + bindHost + "]").equalsIgnoreCase(name)) return true;
    InetAddress bound = resolve(bindHost);
    InetAddress named = resolve(name.startsWith("[") ? name.substring(1, name.length() - 1) : name);
    return bound != null && bound.equals(named);
  }

  private static String shown(String host) {
    return host.contains(":") ? "[" + host + "]" : host;
  }

  private static InetAddress resolve(String host) {
    try {
      return InetAddress.getByName(host);
    } catch (UnknownHostException | SecurityException e) {
      return null;
    }
  }
}
