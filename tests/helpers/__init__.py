"""What the tests share: a headless browser, file trees, a Spark cluster, hypothesis strategies, steps, remote views."""
