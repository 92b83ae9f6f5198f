// Generates ../jdk_values.golden: values computed by the JDK itself
// (java.util.Random, BigInteger.toByteArray, Float/Double bit conversions)
// that the Go ports in package exchange must reproduce.
//
// Run from this directory with a JDK 11+:  java JdkValues.java > ../jdk_values.golden
import java.math.BigInteger;
import java.util.Random;

public class JdkValues {
  // scala.util.hashing.byteswap32, as Spark's round-robin exchange uses it.
  static int byteswap32(int v) {
    int hc = v * 0x9e3775cd;
    hc = Integer.reverseBytes(hc);
    return hc * 0x9e3775cd;
  }

  public static void main(String[] args) {
    long[] seeds = {0L, 1L, 42L, -1L, 123456789L, Long.MIN_VALUE, Long.MAX_VALUE};
    int[] bounds = {1, 2, 7, 8, 10, 200, 1000, 1 << 30, Integer.MAX_VALUE};
    for (long s : seeds) {
      Random r = new Random(s);
      StringBuilder b = new StringBuilder("random " + s + " ints");
      for (int i = 0; i < 3; i++) b.append(' ').append(r.nextInt());
      System.out.println(b);
      for (int bound : bounds) {
        r = new Random(s);
        b = new StringBuilder("random " + s + " bound " + bound);
        for (int i = 0; i < 5; i++) b.append(' ').append(r.nextInt(bound));
        System.out.println(b);
      }
      r = new Random(s);
      System.out.println("random " + s + " long " + r.nextLong() + " " + r.nextLong());
      r = new Random(s);
      System.out.println("random " + s + " double " + Double.doubleToLongBits(r.nextDouble()) + " " + Double.doubleToLongBits(r.nextDouble()));
    }
    int[] parts = {0, 1, 2, 3, 4, 5, 17, 199, 1000, -1, Integer.MAX_VALUE};
    int[] ns = {1, 7, 8, 200};
    for (int p : parts) {
      StringBuilder b = new StringBuilder("byteswap32 " + p + " " + byteswap32(p) + " start");
      for (int n : ns) b.append(' ').append(new Random(byteswap32(p)).nextInt(n));
      System.out.println(b);
    }
    String[] ints = {"0", "1", "-1", "127", "128", "-128", "-129", "255", "256", "32767", "-32768",
        "9223372036854775807", "-9223372036854775808", "9223372036854775808",
        "12345678901234567890123456789", "-12345678901234567890123456789",
        "99999999999999999999999999999999999999", "-99999999999999999999999999999999999999",
        "170141183460469231731687303715884105727", "-170141183460469231731687303715884105728"};
    for (String s : ints) {
      byte[] bs = new BigInteger(s).toByteArray();
      StringBuilder b = new StringBuilder("bigint " + s + " ");
      for (byte x : bs) b.append(String.format("%02x", x));
      System.out.println(b);
    }
    int[] fbits = {0x7fc00000, 0x7f800001, 0xffc00001, 0x80000000, 0x3f800000};
    for (int f : fbits) {
      System.out.println("float " + f + " " + Float.floatToIntBits(Float.intBitsToFloat(f)));
    }
    long[] dbits = {0x7ff8000000000000L, 0x7ff0000000000001L, 0xfff8000000000001L, 0x8000000000000000L, 0x405edd2f1a9fbe77L};
    for (long d : dbits) {
      System.out.println("double " + d + " " + Double.doubleToLongBits(Double.longBitsToDouble(d)));
    }
  }
}
