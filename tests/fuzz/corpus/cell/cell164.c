display_html("<b>bold</b>");
display_text("plain text");
display_markdown("# Title");
