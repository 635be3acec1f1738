import java.io.*;
import java.net.*;
public class PingPong {
    public static void main(String[] a) throws Exception {
        int n = Integer.parseInt(a[0]);
        boolean virtual = a.length > 1 && a[1].equals("virtual");
        ServerSocket ss = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Runnable echo = () -> {
            try (Socket s = ss.accept()) {
                s.setTcpNoDelay(true);
                InputStream in = s.getInputStream(); OutputStream out = s.getOutputStream();
                byte[] b = new byte[64];
                for (;;) { int off = 0; while (off < 64) { int r = in.read(b, off, 64 - off); if (r < 0) return; off += r; } out.write(b); }
            } catch (IOException e) { e.printStackTrace(); }
        };
        Runnable client = () -> {
            try (Socket c = new Socket(InetAddress.getLoopbackAddress(), ss.getLocalPort())) {
                c.setTcpNoDelay(true);
                InputStream in = c.getInputStream(); OutputStream out = c.getOutputStream();
                byte[] b = new byte[64];
                long t0 = System.nanoTime();
                for (int i = 0; i < n; i++) { out.write(b); int off = 0; while (off < 64) { int r = in.read(b, off, 64 - off); if (r < 0) throw new EOFException(); off += r; } }
                System.out.printf("%d round trips, %.2f us each%n", n, (System.nanoTime() - t0) / 1e3 / n);
            } catch (IOException e) { throw new UncheckedIOException(e); }
        };
        Thread s, c;
        if (virtual) {
            s = (Thread) Thread.class.getMethod("startVirtualThread", Runnable.class).invoke(null, echo);
            c = (Thread) Thread.class.getMethod("startVirtualThread", Runnable.class).invoke(null, client);
        } else { s = new Thread(echo); s.start(); c = new Thread(client); c.start(); }
        c.join(); s.join(5000);
        ss.close();
    }
}
