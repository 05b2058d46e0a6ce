"""What the tests share: a headless browser, file trees, a standalone Spark cluster, hypothesis strategies."""
