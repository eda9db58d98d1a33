// GET BASE/data/I.txt for I in 0..N-1 at once with java.net.http's
// HttpClient (its own executor threads connect), and print "I STATUS BODY"
// lines in order; exit 1 on any error (tests/bats/compat.bats).
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

public class HttpGet {
	public static void main(String[] args) {
		String base = args[0];
		int n = Integer.parseInt(args[1]);
		HttpClient client = HttpClient.newBuilder()
		    .version(HttpClient.Version.HTTP_1_1).build();
		List<CompletableFuture<String>> all = new ArrayList<>();
		for (int i = 0; i < n; i++) {
			final int k = i;
			HttpRequest req = HttpRequest.newBuilder(
			    URI.create(base + "/data/" + (k % 8) + ".txt")).build();
			all.add(client.sendAsync(req, HttpResponse.BodyHandlers.ofString())
			    .handle((r, e) -> e != null ? k + " error " + e
			        : k + " " + r.statusCode() + " " + r.body().trim()));
		}
		boolean bad = false;
		for (CompletableFuture<String> f : all) {
			String line = f.join();
			bad |= line.contains(" error ");
			System.out.println(line);
		}
		System.exit(bad ? 1 : 0);
	}
}
